package io.sparkattention.kernel;

import java.util.Objects;

/**
 * The argument checks of {@link FlashAttention}'s public entry points, written once. Each failure
 * is an {@link IllegalArgumentException} naming the tensor and the sizes involved; the passes
 * behind the entry points check nothing again.
 */
final class Checks {

    private Checks() {
    }

    /** Shape, Q, K, V and the mask. */
    static void inputs(AttentionShape shape, float[] q, float[] k, float[] v, RowMask mask) {
        scores(shape, q, k, mask);
        length("value", v, shape.valueSize());
    }

    /** What the scores need (the weights pass reads no V): shape, Q, K and the mask. */
    static void scores(AttentionShape shape, float[] q, float[] k, RowMask mask) {
        Objects.requireNonNull(shape, "shape");
        length("query", q, shape.querySize());
        length("key", k, shape.keySize());
        Objects.requireNonNull(mask, "mask (use RowMask.NONE)");
        mask.check(shape.numHeads(), shape.queryLength(), shape.keyLength());
    }

    /** The forward pass's outputs: L×(H·dv) and, when given, H×L log-sum-exp. */
    static void forwardOutputs(AttentionShape shape, float[] out, float[] lse) {
        length("output", out, shape.outputSize());
        if (lse != null) {
            lseLength(shape, lse);
        }
    }

    static void lseLength(AttentionShape shape, float[] lse) {
        length("log-sum-exp", lse, shape.numHeads() * shape.queryLength());
    }

    static void length(String what, float[] a, int expected) {
        if (a == null) {
            throw new IllegalArgumentException(what + " is null, expected " + expected + " values");
        }
        if (a.length != expected) {
            throw new IllegalArgumentException(what + " has " + a.length + " values, expected " + expected);
        }
    }

    /** An output array must not be one of the call's other arrays: the pass reads them while it writes it. */
    static void distinct(String what, float[] written, float[]... others) {
        for (float[] other : others) {
            if (written == other) {
                throw new IllegalArgumentException(what + " is the same array as another argument of the call");
            }
        }
    }

    static void length(String what, boolean[] a, int expected) {
        if (a.length != expected) {
            throw new IllegalArgumentException(what + " has " + a.length + " values, expected " + expected);
        }
    }

    /**
     * A view of {@code rows × cols} values: inside its array, its rows at least {@code cols}
     * apart. An empty view may have no array.
     */
    static void view(String what, MatrixView m, int rows, int cols) {
        Objects.requireNonNull(m, what);
        Gemm.checkView(what, m.data(), m.offset(), rows, cols, m.ld());
    }

    /** The views the forward pass reads and writes, and its log-sum-exp (H×L from lseOff) when given. */
    static void forwardViews(AttentionShape shape, MatrixView q, MatrixView k, MatrixView v, RowMask mask,
                             MatrixView out, float[] lse, int lseOff) {
        Objects.requireNonNull(shape, "shape");
        int L = shape.queryLength(), S = shape.keyLength();
        view("query", q, L, shape.numHeads() * shape.headDim());
        view("key", k, S, shape.numKvHeads() * shape.headDim());
        view("value", v, S, shape.numKvHeads() * shape.valueDim());
        view("output", out, L, shape.numHeads() * shape.valueDim());
        Objects.requireNonNull(mask, "mask (use RowMask.NONE)");
        mask.check(shape.numHeads(), L, S);
        if (lse != null) {
            lseRange(shape, lse, lseOff);
        }
    }

    static void lseRange(AttentionShape shape, float[] lse, int lseOff) {
        long n = (long) shape.numHeads() * shape.queryLength();
        if (lseOff < 0 || lse.length - (long) lseOff < n) {
            throw new IllegalArgumentException("log-sum-exp has " + lse.length + " values, expected " + n
                + " from offset " + lseOff);
        }
    }

    /** The backward pass's arrays: the forward's inputs and outputs, dO, and the gradients, each distinct. */
    static void backward(AttentionShape shape, float[] q, float[] k, float[] v, RowMask mask, float[] out,
                         float[] lse, float[] dOut, float[] dq, float[] dk, float[] dv, float[] dBias) {
        inputs(shape, q, k, v, mask);
        length("output", out, shape.outputSize());
        lseLength(shape, lse);
        length("output gradient", dOut, shape.outputSize());
        length("query gradient", dq, shape.querySize());
        length("key gradient", dk, shape.keySize());
        length("value gradient", dv, shape.valueSize());
        distinct("query gradient", dq, q, k, v, out, lse, dOut);
        distinct("key gradient", dk, q, k, v, out, lse, dOut, dq);
        distinct("value gradient", dv, q, k, v, out, lse, dOut, dq, dk);
        biasGradient(mask, dBias, q, k, v, out, lse, dOut, dq, dk, dv);
    }

    /** dBias: null, or as long as the mask's bias and distinct from the call's other arrays. */
    static void biasGradient(RowMask mask, float[] dBias, float[]... others) {
        if (dBias != null) {
            if (mask.bias() == null) {
                throw new IllegalArgumentException("bias gradient given, but the mask has no additive bias");
            }
            length("bias gradient", dBias, mask.bias().length);
            distinct("bias gradient", dBias, others);
            distinct("bias gradient", dBias, mask.bias());
        }
    }

    /** The weights call on views: Q, K, the mask, the log-sum-exp from lseOff and the weights' size. */
    static void weightsViews(AttentionShape shape, MatrixView q, MatrixView k, RowMask mask, float[] lse,
                             int lseOff, boolean perHead, float[] weights) {
        Objects.requireNonNull(shape, "shape");
        int L = shape.queryLength(), S = shape.keyLength(), H = shape.numHeads();
        view("query", q, L, H * shape.headDim());
        view("key", k, S, shape.numKvHeads() * shape.headDim());
        Objects.requireNonNull(mask, "mask (use RowMask.NONE)");
        mask.check(H, L, S);
        Objects.requireNonNull(lse, "lse");
        lseRange(shape, lse, lseOff);
        long plane = (long) L * S;
        long size = perHead ? plane * H : plane;
        if (size > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("attention weights of " + shape + " do not fit one Java array");
        }
        length("attention weights", weights, (int) size);
    }

    /** The backward call on views: the forward's views, dO, the gradients' views (not the arrays read) and dBias. */
    static void backwardViews(AttentionShape shape, MatrixView q, MatrixView k, MatrixView v, RowMask mask,
                              MatrixView out, float[] lse, int lseOff, MatrixView dOut, MatrixView dq, MatrixView dk,
                              MatrixView dv, float[] dBias) {
        forwardViews(shape, q, k, v, mask, out, lse, lseOff);
        Objects.requireNonNull(lse, "lse");
        int L = shape.queryLength(), S = shape.keyLength();
        view("output gradient", dOut, L, shape.numHeads() * shape.valueDim());
        view("query gradient", dq, L, shape.numHeads() * shape.headDim());
        view("key gradient", dk, S, shape.numKvHeads() * shape.headDim());
        view("value gradient", dv, S, shape.numKvHeads() * shape.valueDim());
        for (MatrixView g : new MatrixView[] {dq, dk, dv}) {
            distinct("a gradient", g.data(), q.data(), k.data(), v.data(), out.data(), lse, dOut.data());
        }
        biasGradient(mask, dBias, q.data(), k.data(), v.data(), out.data(), lse, dOut.data(), dq.data(), dk.data(),
            dv.data());
    }

    /** {@link FlashAttention#forwardBlock}'s arguments. */
    static void block(int rows, int keys, int d, int dv, float[] q, float[] k, float[] v, BlockPosition pos,
                      boolean[] allowed, float[] bias, float[] out, float[] lse) {
        if (rows < 0 || keys < 0 || d < 1 || dv < 1) {
            throw new IllegalArgumentException("bad block shape: rows=" + rows + ", keys=" + keys + ", d=" + d + ", dv=" + dv);
        }
        if ((long) pos.queryStart() + rows > pos.totalQueries() || (long) pos.keyStart() + keys > pos.totalKeys()) {
            throw new IllegalArgumentException("block [" + pos.queryStart() + "+" + rows + ") × [" + pos.keyStart()
                + "+" + keys + ") exceeds the sequence's " + pos.totalQueries() + "×" + pos.totalKeys());
        }
        length("query block", q, rows * d);
        length("key block", k, keys * d);
        length("value block", v, keys * dv);
        length("output block", out, rows * dv);
        length("log-sum-exp block", lse, rows);
        if (allowed != null) {
            length("boolean mask block", allowed, rows * keys);
        }
        if (bias != null) {
            length("bias block", bias, rows * keys);
        }
    }
}

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
}

package io.sparkattention.kernel;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.Vector;
import jdk.incubator.vector.VectorSpecies;

import java.util.Arrays;

/**
 * The weight gradient {@code dW[out×in] += dy[m×out]ᵀ·x[m×in]} on the Vector API, for
 * {@link VectorLinearKernel}: a projection whose depth is m, whose rows are dW's out rows and
 * whose panels are x's columns. Both operands are read along their rows, so each is copied once
 * into the micro-kernel's order, one depth block at a time:
 * <pre>
 *   dyb[b·ROWS·DEPTH_BLOCK + t·ROWS + r] = dy[p0+t, b·ROWS + r]     (zero beyond out)
 *   xb[(j−j0)·kc + t·PANEL + c]           = x[p0+t, j+c]             (zero beyond in)
 * </pre>
 * dyb holds the depth block's dy for up to {@link #HEIGHT_BLOCK} of dW's rows, interleaved so that a
 * row block's kc steps are {@code ROWS·kc} contiguous floats (one step's ROWS values side by side); xb
 * holds one width block of x's panels, packed just before its row blocks use it, so that it is in L2
 * when they do. The loops run depth block → height block → width block → row blocks → panels.
 *
 * <p>Each element of dW adds, depth block by depth block in order, the sum of the block's products
 * fused-multiply-added from zero in row order: its bits depend on m's depth blocks alone, not on out,
 * in or the element's place in its block.
 *
 * <p>The layout is measured (Zen 5, AVX-512, one thread, 2026-12-06): 0.80–0.87 of the FMA loop, where
 * dy's columns gathered into the forward kernel's block for every row block and width block, with x
 * packed whole beforehand, ran at 0.59–0.68, and the micro-kernel alone on packed operands at
 * 0.88–0.93. dy is copied a row block at a time (a strided read of ROWS floats a step): a step at a
 * time, over all row blocks, ran at 0.74–0.85. Copying dy's runs with 8-lane vectors into a
 * stride-8 layout, or x's panels with vector loads, a plain loop or panel by panel, ran slower than
 * these scalar copies and {@code System.arraycopy} row by row.
 */
final class VectorWeightGradient {

    private static final VectorSpecies<Float> SPECIES = VectorLinearKernel.SPECIES;
    private static final int LANES = VectorLinearKernel.LANES;
    private static final int ROWS = VectorLinearKernel.ROWS;
    private static final int PANEL = VectorLinearKernel.PANEL;
    private static final int DEPTH_BLOCK = VectorLinearKernel.DEPTH_BLOCK;
    private static final int WIDTH_BLOCK = VectorLinearKernel.WIDTH_BLOCK;
    private static final Class<? extends Vector<Float>> EXACT = VectorLinearKernel.EXACT;

    /**
     * dW rows whose dy is packed at once (a multiple of 4 and of 6): bounds the scratch at
     * (HEIGHT_BLOCK + WIDTH_BLOCK)·DEPTH_BLOCK floats, 2 MiB, whatever out is (GPT-2's tied head has
     * 50,257 rows). x's width block is packed again for each group of rows: in·kc copies beside the
     * group's HEIGHT_BLOCK·in·kc multiply-adds.
     */
    static final int HEIGHT_BLOCK = 1536;

    private VectorWeightGradient() {
    }

    /** {@link LinearKernel#addWeightGradient}; m, in, out ≥ 1. */
    static void add(int m, int in, int out, float[] dy, int dyOff, int ldDy, float[] x, float[] dw, int dwOff,
                    WeightGradient scratch) {
        int height = Math.min(out, HEIGHT_BLOCK);
        int xb = (height + ROWS - 1) / ROWS * ROWS * DEPTH_BLOCK;
        float[] buf = scratch.packed(xb + WIDTH_BLOCK * DEPTH_BLOCK);
        float[] tile = new float[ROWS * PANEL];
        for (int p0 = 0; p0 < m; p0 += DEPTH_BLOCK) {
            int kc = Math.min(DEPTH_BLOCK, m - p0);
            for (int g0 = 0; g0 < out; g0 += HEIGHT_BLOCK) {
                int g1 = Math.min(out, g0 + HEIGHT_BLOCK);
                packRows(dy, dyOff + p0 * ldDy + g0, ldDy, g1 - g0, kc, buf);
                for (int j0 = 0; j0 < in; j0 += WIDTH_BLOCK) {
                    int j1 = Math.min(in, j0 + WIDTH_BLOCK);
                    packPanels(x, p0 * in, in, kc, j0, j1, buf, xb);
                    for (int i0 = g0, aOff = 0; i0 < g1; i0 += ROWS, aOff += ROWS * DEPTH_BLOCK) {
                        int rows = Math.min(ROWS, g1 - i0);
                        for (int j = j0; j < j1; j += PANEL) {
                            int wOff = xb + (j - j0) * kc;
                            int cols = Math.min(PANEL, in - j);
                            if (rows == ROWS && cols == PANEL) {
                                block(kc, buf, aOff, wOff, dw, dwOff + i0 * in + j, in);
                            } else {
                                Arrays.fill(tile, 0f);
                                block(kc, buf, aOff, wOff, tile, 0, PANEL);
                                VectorLinearKernel.addTile(tile, rows, cols, dw, dwOff + i0 * in + j, in);
                            }
                        }
                    }
                }
            }
        }
    }

    /** dyb (at 0) from kc rows of dy's {@code out} columns at {@code src}: each step's ROWS values of a row block side by side. */
    private static void packRows(float[] dy, int src, int ldDy, int out, int kc, float[] dyb) {
        int full = out / ROWS;
        for (int b = 0; b < full; b++) {
            int d = b * ROWS * DEPTH_BLOCK;
            int s = src + b * ROWS;
            for (int t = 0; t < kc; t++, d += ROWS, s += ldDy) {
                for (int r = 0; r < ROWS; r++) {
                    dyb[d + r] = dy[s + r];
                }
            }
        }
        if (full * ROWS < out) {
            int rows = out - full * ROWS;
            int d = full * ROWS * DEPTH_BLOCK;
            int s = src + full * ROWS;
            for (int t = 0; t < kc; t++, d += ROWS, s += ldDy) {
                for (int r = 0; r < ROWS; r++) {
                    dyb[d + r] = r < rows ? dy[s + r] : 0f;
                }
            }
        }
    }

    /** xb (at {@code xb}) from columns [j0, j1) of kc rows of x starting at {@code src}, a row at a time. */
    private static void packPanels(float[] x, int src, int in, int kc, int j0, int j1, float[] buf, int xb) {
        for (int t = 0; t < kc; t++, src += in) {
            for (int j = j0; j < j1; j += PANEL) {
                int width = Math.min(PANEL, j1 - j);
                int dst = xb + (j - j0) * kc + t * PANEL;
                System.arraycopy(x, src + j, buf, dst, width);
                if (width < PANEL) {
                    Arrays.fill(buf, dst + width, dst + PANEL, 0f);
                }
            }
        }
    }

    /** The micro-kernel of {@link VectorLinearKernel#ROWS} rows (a constant: C2 keeps one branch). */
    private static void block(int kc, float[] buf, int aOff, int wOff, float[] c, int cOff, int ldc) {
        if (ROWS == 6) {
            block6x2(kc, buf, aOff, wOff, c, cOff, ldc);
        } else {
            block4x2(kc, buf, aOff, wOff, c, cOff, ldc);
        }
    }

    /**
     * {@code c[6 × PANEL] (ld ldc) += a[kc × 6]ᵀ · panel[kc × PANEL]}, a = {@code buf[aOff + t·6 + r]},
     * panel step t = {@code buf[wOff + t·PANEL, +PANEL)}: {@link VectorLinearKernel}'s 6 × 2 block with
     * the rows' values of a step side by side, so the six broadcasts share one index register with
     * constant displacements, as there. Written out whole for the reasons given there.
     */
    private static void block6x2(int kc, float[] buf, int aOff, int wOff, float[] c, int cOff, int ldc) {
        FloatVector c00 = FloatVector.zero(SPECIES), c01 = c00;
        FloatVector c10 = c00, c11 = c00;
        FloatVector c20 = c00, c21 = c00;
        FloatVector c30 = c00, c31 = c00;
        FloatVector c40 = c00, c41 = c00;
        FloatVector c50 = c00, c51 = c00;
        for (int t = 0; t < kc; t++) {
            final int w = wOff + t * PANEL;
            final int a0 = aOff + t * 6;
            final FloatVector w0 = FloatVector.fromArray(SPECIES, buf, w);
            final FloatVector w1 = FloatVector.fromArray(SPECIES, buf, w + LANES);
            FloatVector a = FloatVector.broadcast(SPECIES, buf[a0]);
            c00 = a.fma(w0, c00);
            c01 = a.fma(w1, c01);
            a = FloatVector.broadcast(SPECIES, buf[a0 + 1]);
            c10 = a.fma(w0, c10);
            c11 = a.fma(w1, c11);
            a = FloatVector.broadcast(SPECIES, buf[a0 + 2]);
            c20 = a.fma(w0, c20);
            c21 = a.fma(w1, c21);
            a = FloatVector.broadcast(SPECIES, buf[a0 + 3]);
            c30 = a.fma(w0, c30);
            c31 = a.fma(w1, c31);
            a = FloatVector.broadcast(SPECIES, buf[a0 + 4]);
            c40 = a.fma(w0, c40);
            c41 = a.fma(w1, c41);
            a = FloatVector.broadcast(SPECIES, buf[a0 + 5]);
            c50 = a.fma(w0, c50);
            c51 = a.fma(w1, c51);
        }
        // y += the accumulators, each sum cast to its exact class first (see VectorLinearKernel.block6x2).
        int y = cOff;
        ((FloatVector) EXACT.cast(c00.add(FloatVector.fromArray(SPECIES, c, y)))).intoArray(c, y);
        ((FloatVector) EXACT.cast(c01.add(FloatVector.fromArray(SPECIES, c, y + LANES)))).intoArray(c, y + LANES);
        y += ldc;
        ((FloatVector) EXACT.cast(c10.add(FloatVector.fromArray(SPECIES, c, y)))).intoArray(c, y);
        ((FloatVector) EXACT.cast(c11.add(FloatVector.fromArray(SPECIES, c, y + LANES)))).intoArray(c, y + LANES);
        y += ldc;
        ((FloatVector) EXACT.cast(c20.add(FloatVector.fromArray(SPECIES, c, y)))).intoArray(c, y);
        ((FloatVector) EXACT.cast(c21.add(FloatVector.fromArray(SPECIES, c, y + LANES)))).intoArray(c, y + LANES);
        y += ldc;
        ((FloatVector) EXACT.cast(c30.add(FloatVector.fromArray(SPECIES, c, y)))).intoArray(c, y);
        ((FloatVector) EXACT.cast(c31.add(FloatVector.fromArray(SPECIES, c, y + LANES)))).intoArray(c, y + LANES);
        y += ldc;
        ((FloatVector) EXACT.cast(c40.add(FloatVector.fromArray(SPECIES, c, y)))).intoArray(c, y);
        ((FloatVector) EXACT.cast(c41.add(FloatVector.fromArray(SPECIES, c, y + LANES)))).intoArray(c, y + LANES);
        y += ldc;
        ((FloatVector) EXACT.cast(c50.add(FloatVector.fromArray(SPECIES, c, y)))).intoArray(c, y);
        ((FloatVector) EXACT.cast(c51.add(FloatVector.fromArray(SPECIES, c, y + LANES)))).intoArray(c, y + LANES);
    }

    /** {@link #block6x2} for 4 rows (AVX2: 8 accumulators, 2 weights and a broadcast in 16 registers). */
    private static void block4x2(int kc, float[] buf, int aOff, int wOff, float[] c, int cOff, int ldc) {
        FloatVector c00 = FloatVector.zero(SPECIES), c01 = c00;
        FloatVector c10 = c00, c11 = c00;
        FloatVector c20 = c00, c21 = c00;
        FloatVector c30 = c00, c31 = c00;
        for (int t = 0; t < kc; t++) {
            final int w = wOff + t * PANEL;
            final int a0 = aOff + t * 4;
            final FloatVector w0 = FloatVector.fromArray(SPECIES, buf, w);
            final FloatVector w1 = FloatVector.fromArray(SPECIES, buf, w + LANES);
            FloatVector a = FloatVector.broadcast(SPECIES, buf[a0]);
            c00 = a.fma(w0, c00);
            c01 = a.fma(w1, c01);
            a = FloatVector.broadcast(SPECIES, buf[a0 + 1]);
            c10 = a.fma(w0, c10);
            c11 = a.fma(w1, c11);
            a = FloatVector.broadcast(SPECIES, buf[a0 + 2]);
            c20 = a.fma(w0, c20);
            c21 = a.fma(w1, c21);
            a = FloatVector.broadcast(SPECIES, buf[a0 + 3]);
            c30 = a.fma(w0, c30);
            c31 = a.fma(w1, c31);
        }
        int y = cOff;
        ((FloatVector) EXACT.cast(c00.add(FloatVector.fromArray(SPECIES, c, y)))).intoArray(c, y);
        ((FloatVector) EXACT.cast(c01.add(FloatVector.fromArray(SPECIES, c, y + LANES)))).intoArray(c, y + LANES);
        y += ldc;
        ((FloatVector) EXACT.cast(c10.add(FloatVector.fromArray(SPECIES, c, y)))).intoArray(c, y);
        ((FloatVector) EXACT.cast(c11.add(FloatVector.fromArray(SPECIES, c, y + LANES)))).intoArray(c, y + LANES);
        y += ldc;
        ((FloatVector) EXACT.cast(c20.add(FloatVector.fromArray(SPECIES, c, y)))).intoArray(c, y);
        ((FloatVector) EXACT.cast(c21.add(FloatVector.fromArray(SPECIES, c, y + LANES)))).intoArray(c, y + LANES);
        y += ldc;
        ((FloatVector) EXACT.cast(c30.add(FloatVector.fromArray(SPECIES, c, y)))).intoArray(c, y);
        ((FloatVector) EXACT.cast(c31.add(FloatVector.fromArray(SPECIES, c, y + LANES)))).intoArray(c, y + LANES);
    }
}

package io.sparkattention.kernel;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.Vector;
import jdk.incubator.vector.VectorSpecies;

import java.util.Arrays;

/**
 * Projections as a register-blocked Java Vector API micro-kernel on a packed weight, no BLAS.
 *
 * <p><b>Packed weight.</b> {@code W[n×k]} is cut into panels of {@link #PANEL} output columns
 * ({@link #VECTORS} vectors); a panel is k steps of PANEL contiguous floats, zero beyond n:
 * <pre>
 *   wp[p·PANEL·k + t·PANEL + j] = W[p·PANEL + j, t]      j &lt; PANEL, t &lt; k
 * </pre>
 * <b>Blocks.</b> Each call of the micro-kernel computes a block of {@link #ROWS} rows × PANEL
 * columns of y over a depth block of at most {@value #DEPTH_BLOCK} steps:
 * <pre>
 *   y[i0:i0+ROWS, j:j+PANEL] += Σ_{t &lt; kc} x[i0:i0+ROWS, p0+t] ⊗ wp[panel j, p0+t, 0:PANEL]
 * </pre>
 * one broadcast per row and VECTORS weight loads per step, shared by all rows. The loops run
 * width block (columns, {@value #WIDTH_BLOCK}) → depth block → rows → panels; each row block's
 * x ({@code ROWS × kc}) is copied into a block at the stride DEPTH_BLOCK (zero beyond the last
 * rows) that stays in L1 while the width block's packed panels ({@code WIDTH_BLOCK × kc}, 512 KiB)
 * stay in L2. A partial panel or row block is computed into a scratch tile and added back, so
 * any m, n, k work.
 */
final class VectorLinearKernel extends LinearKernel {

    static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED;
    /** The species' vector class: a cast to it gives C2 a vector's exact class (see {@link #block6x2}). */
    static final Class<? extends Vector<Float>> EXACT = SPECIES.vectorType();
    static final int LANES = SPECIES.length();
    /**
     * Rows of x per block: 6 with vectors of 16 lanes or more (AVX-512's 32 registers hold the 6 × 2
     * accumulators, 2 weights and a broadcast), 4 with fewer (AVX2's 16 registers). With 8-lane
     * vectors C2 spills the 6 × 2 block's accumulators in the loop: 0.41–0.44 of the FMA loop,
     * against 0.77–0.91 for 4 × 2 (8 accumulators: as many independent FMAs as two 4-cycle pipes
     * keep busy), 0.89–0.91 for 3 × 3, 0.35 for 5 × 2 and 0.42 for 4 × 3 (Zen 5 held to AVX2 by
     * {@code -XX:UseAVX=2}, one thread, operands in L1/L2). Each element of y sums its products in
     * the same order whatever the block, so the bits do not depend on this choice.
     */
    static final int ROWS = LANES >= 16 ? 6 : 4;
    /**
     * Vectors per panel. With AVX-512's 32 registers, larger blocks than 6 × 2 (8×2, 8×3, 12×2, 4×4,
     * 6×3, each with its tail written so that C2 compiles it whole) ran at 0.92–1.03× of 6×2 on Zen
     * 5, none ahead on every shape, and 4 × 2 at 0.73–0.76 of the FMA loop against 0.87–0.91: there
     * the block waits on the weight panels and y tiles from L2 and L3, not on its FMAs
     * (BENCHMARKS.md, "The roof").
     */
    static final int VECTORS = 2;
    /** Output columns per packed panel: 32 with AVX-512, 16 with AVX2. */
    static final int PANEL = VECTORS * LANES;
    /**
     * Steps of k per block: a block of x is ROWS × 256 floats (4–6 KiB), in L1 next to the panel's stream.
     * Depth blocks of 384, 512 and 1,024 (width blocks of 384, 256 and 128: the same L2 footprint)
     * ran at 0.87–1.07×, 0.87–1.10× and 0.89–1.02× of 256 on Zen 5 (one thread, timed by thread CPU
     * time on a loaded host), none ahead on every shape.
     */
    static final int DEPTH_BLOCK = 256;
    /** Output columns per width block (a multiple of {@link #PANEL}): its packed panels, 512 × 256 floats, fit L2. */
    static final int WIDTH_BLOCK = 512;

    /** The largest packed weight: the largest array length every JVM allocates. */
    private static final long MAX_PACKED = Integer.MAX_VALUE - 8;

    /**
     * With AVX-512 the micro-kernel runs 512-bit FMAs on a weight packed once, while a native
     * OpenBLAS may be held to narrower kernels (see {@link GemmChoice}); with AVX2 a native BLAS
     * keeps the projections.
     */
    @Override
    boolean preferredOverNativeBlas() {
        return LANES >= 16;
    }

    /**
     * Every row block runs the same micro-kernel over the same depth blocks, and a short last
     * block is computed as a zero-padded full one and added the same way: a row's values do not
     * depend on m or on the row's place.
     */
    @Override
    boolean rowsIndependent() {
        return true;
    }

    @Override
    float[] pack(float[] w, int n, int k) {
        float[] packed = new float[checkedPackedSize(n, k)];
        for (int j = 0; j < n; j++) {
            int base = j / PANEL * PANEL * k + j % PANEL;
            int src = j * k;
            for (int t = 0; t < k; t++) {
                packed[base + t * PANEL] = w[src + t];
            }
        }
        return packed;
    }

    /** Panels straight from w's rows: panel p, step t is {@code w[t, p·PANEL : (p+1)·PANEL]}, zero beyond cols. */
    @Override
    float[] packTransposed(float[] w, int rows, int cols) {
        float[] packed = new float[checkedPackedSize(cols, rows)];
        for (int j = 0; j < cols; j += PANEL) {
            int width = Math.min(PANEL, cols - j);
            int base = j * rows;
            for (int t = 0; t < rows; t++) {
                int dst = base + t * PANEL;
                System.arraycopy(w, t * cols + j, packed, dst, width);
                if (width < PANEL) {
                    Arrays.fill(packed, dst + width, dst + PANEL, 0f);
                }
            }
        }
        return packed;
    }

    /** On {@link VectorWeightGradient}: both operands copied into the micro-kernel's order a depth block at a time. */
    @Override
    void addWeightGradient(int m, int in, int out, float[] dy, int dyOff, int ldDy, float[] x, float[] dw, int dwOff,
                           WeightGradient scratch) {
        VectorWeightGradient.add(m, in, out, dy, dyOff, ldDy, x, dw, dwOff, scratch);
    }

    private static int checkedPackedSize(int n, int k) {
        long size = ((long) n + PANEL - 1) / PANEL * PANEL * k;
        if (size > MAX_PACKED) {
            throw new IllegalArgumentException("weight " + n + "×" + k + " needs " + size
                + " floats packed in panels of " + PANEL + ", more than one array holds");
        }
        return (int) size;
    }

    @Override
    void multiplyAdd(int m, int n, int k, float[] x, float[] wp, float[] y, int yOff) {
        float[] tile = new float[ROWS * PANEL];
        // The row block's x, ROWS rows at a stride of DEPTH_BLOCK (zero beyond the last row).
        float[] block = new float[ROWS * DEPTH_BLOCK];
        for (int j0 = 0; j0 < n; j0 += WIDTH_BLOCK) {
            int j1 = Math.min(n, j0 + WIDTH_BLOCK);
            for (int p0 = 0; p0 < k; p0 += DEPTH_BLOCK) {
                int kc = Math.min(DEPTH_BLOCK, k - p0);
                for (int i0 = 0; i0 < m; i0 += ROWS) {
                    int rows = Math.min(ROWS, m - i0);
                    for (int r = 0; r < rows; r++) {
                        System.arraycopy(x, (i0 + r) * k + p0, block, r * DEPTH_BLOCK, kc);
                    }
                    if (rows < ROWS) {
                        Arrays.fill(block, rows * DEPTH_BLOCK, ROWS * DEPTH_BLOCK, 0f);
                    }
                    rowBlock(i0, rows, j0, j1, n, k, p0, kc, block, wp, y, yOff, tile);
                }
            }
        }
    }

    /**
     * {@code y[i0:i0+rows, j0:j1] += x-block · panelsᵀ} over the depth block {@code [p0, p0+kc)};
     * the x block holds ROWS rows at a stride of DEPTH_BLOCK (zero beyond {@code rows}). j0 is a
     * multiple of PANEL.
     */
    private static void rowBlock(int i0, int rows, int j0, int j1, int n, int k, int p0, int kc, float[] block,
                                 float[] wp, float[] y, int yOff, float[] tile) {
        for (int j = j0; j < j1; j += PANEL) {
            // Panel j / PANEL starts at (j / PANEL)·PANEL·k = j·k.
            int wOff = j * k + p0 * PANEL;
            int cols = Math.min(PANEL, n - j);
            if (rows == ROWS && cols == PANEL) {
                block(kc, block, wp, wOff, y, yOff + i0 * n + j, n);
            } else {
                Arrays.fill(tile, 0f);
                block(kc, block, wp, wOff, tile, 0, PANEL);
                addTile(tile, rows, cols, y, yOff + i0 * n + j, n);
            }
        }
    }

    /**
     * {@code c[r·ldc + col] += tile[r·PANEL + col]} for r &lt; rows, col &lt; cols: a partial block,
     * computed whole into a zeroed ROWS × PANEL tile, added back where it belongs.
     */
    static void addTile(float[] tile, int rows, int cols, float[] c, int cOff, int ldc) {
        for (int r = 0; r < rows; r++) {
            int dst = cOff + r * ldc;
            for (int col = 0; col < cols; col++) {
                c[dst + col] += tile[r * PANEL + col];
            }
        }
    }

    /** The micro-kernel of {@link #ROWS} rows (a constant: C2 keeps one branch). */
    private static void block(int kc, float[] block, float[] wp, int wOff, float[] c, int cOff, int ldc) {
        if (ROWS == 6) {
            block6x2(kc, block, wp, wOff, c, cOff, ldc);
        } else {
            block4x2(kc, block, wp, wOff, c, cOff, ldc);
        }
    }

    /**
     * {@code c[ROWS × PANEL] (ld ldc) += block[ROWS × kc] (ld DEPTH_BLOCK) · panel[kc × PANEL]}: 6 rows
     * × 2 vectors, 12 accumulators fed per step by 2 weight loads and 6 broadcasts from memory.
     *
     * <p>The x block's rows sit at the constant stride DEPTH_BLOCK, and the panel's step t at
     * {@code wOff + t·PANEL}: C2 then addresses all six broadcasts from one index register with
     * constant displacements and hoists every range check out of the loop, leaving 29 instructions
     * for 12 FMAs (Zen 5, JDK 17). Read from x in place (six row offsets and a second induction
     * variable for the panel), the loop needed more general registers than it had: in some JVMs C2
     * kept the panel's index in an XMM register and moved it back every step, a chain longer than
     * the step's FMAs, and the same product ran at 0.72 instead of 0.86 of the FMA loop for the
     * JVM's whole life (BENCHMARKS.md, "The roof").
     */
    private static void block6x2(int kc, float[] block, float[] wp, int wOff, float[] c, int cOff, int ldc) {
        FloatVector c00 = FloatVector.zero(SPECIES), c01 = c00;
        FloatVector c10 = c00, c11 = c00;
        FloatVector c20 = c00, c21 = c00;
        FloatVector c30 = c00, c31 = c00;
        FloatVector c40 = c00, c41 = c00;
        FloatVector c50 = c00, c51 = c00;
        for (int t = 0; t < kc; t++) {
            final int w = wOff + t * PANEL;
            final FloatVector w0 = FloatVector.fromArray(SPECIES, wp, w);
            final FloatVector w1 = FloatVector.fromArray(SPECIES, wp, w + LANES);
            FloatVector a = FloatVector.broadcast(SPECIES, block[t]);
            c00 = a.fma(w0, c00);
            c01 = a.fma(w1, c01);
            a = FloatVector.broadcast(SPECIES, block[t + DEPTH_BLOCK]);
            c10 = a.fma(w0, c10);
            c11 = a.fma(w1, c11);
            a = FloatVector.broadcast(SPECIES, block[t + 2 * DEPTH_BLOCK]);
            c20 = a.fma(w0, c20);
            c21 = a.fma(w1, c21);
            a = FloatVector.broadcast(SPECIES, block[t + 3 * DEPTH_BLOCK]);
            c30 = a.fma(w0, c30);
            c31 = a.fma(w1, c31);
            a = FloatVector.broadcast(SPECIES, block[t + 4 * DEPTH_BLOCK]);
            c40 = a.fma(w0, c40);
            c41 = a.fma(w1, c41);
            a = FloatVector.broadcast(SPECIES, block[t + 5 * DEPTH_BLOCK]);
            c50 = a.fma(w0, c50);
            c51 = a.fma(w1, c51);
        }
        // y += the accumulators, written out here rather than through a helper taking a vector:
        // C2 (JDK 17) stops inlining within this method at NodeCountInliningCutoff, and a vector
        // handed to a call it did not inline is boxed on every call. With a helper the twelfth
        // call was left out and the block ran at 0.43 of the FMA loop instead of 0.82 (Zen 5,
        // 2040×384×384). The Vector API's own methods are force-inlined past the cutoff, but late,
        // and a late call on a vector of unknown class takes the class from the API's shared call
        // profile: with a miss on record there the species is no constant and the call runs on the
        // API's Java fallback (a fine-tuning JVM's dW block left its last store so in some runs,
        // LogCompilation). So each sum is cast to the species' exact class (EXACT) before its store.
        // Accumulators started from the y tile (loaded before the loop, stored after it) ran at
        // 0.88–1.06× of this on Zen 5 (loaded host, one thread): not ahead, and it would change
        // every projection's bits, so the block sums from zero and adds its sums into y.
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
    private static void block4x2(int kc, float[] block, float[] wp, int wOff, float[] c, int cOff, int ldc) {
        FloatVector c00 = FloatVector.zero(SPECIES), c01 = c00;
        FloatVector c10 = c00, c11 = c00;
        FloatVector c20 = c00, c21 = c00;
        FloatVector c30 = c00, c31 = c00;
        for (int t = 0; t < kc; t++) {
            final int w = wOff + t * PANEL;
            final FloatVector w0 = FloatVector.fromArray(SPECIES, wp, w);
            final FloatVector w1 = FloatVector.fromArray(SPECIES, wp, w + LANES);
            FloatVector a = FloatVector.broadcast(SPECIES, block[t]);
            c00 = a.fma(w0, c00);
            c01 = a.fma(w1, c01);
            a = FloatVector.broadcast(SPECIES, block[t + DEPTH_BLOCK]);
            c10 = a.fma(w0, c10);
            c11 = a.fma(w1, c11);
            a = FloatVector.broadcast(SPECIES, block[t + 2 * DEPTH_BLOCK]);
            c20 = a.fma(w0, c20);
            c21 = a.fma(w1, c21);
            a = FloatVector.broadcast(SPECIES, block[t + 3 * DEPTH_BLOCK]);
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

    @Override
    public String name() {
        return "vector:" + SPECIES.vectorBitSize() + "-bit:" + ROWS + "x" + PANEL;
    }
}

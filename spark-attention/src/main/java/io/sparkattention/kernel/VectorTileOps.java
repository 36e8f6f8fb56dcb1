package io.sparkattention.kernel;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * Tile products as register-blocked Java Vector API micro-kernels, no BLAS.
 *
 * <p>Strips are {@code W = 2·LANES} queries wide (LANES floats per vector: 16 queries with AVX2, 32 with AVX-512),
 * then one vector, then a scalar tail. Both products have the same shape: a block of rows of
 * accumulators, each row {@code W} queries wide (two vectors), fed per step by one broadcast
 * scalar per row and two vector loads shared by all rows:
 * <pre>
 *   scores     Sᵀ[c, 0:W] = Σₜ K[c, t] · Qpᵀ[t, 0:W]       {@value #KEYS} keys per block, t < d
 *   accumulate Oᵀ[t, 0:W] += Σ_c V[c, t] · Pᵀ[c, 0:W]      {@value #COLUMNS} value columns per block, c < nk
 * </pre>
 * {@code KEYS·2} accumulators + 2 loaded vectors + 1 broadcast fit the 16 AVX2 registers
 * (AVX-512 has 32: P·V then takes {@value #WIDE_COLUMNS_AVX512} columns per block, and the
 * vectors are twice as wide). Broadcasts
 * need no transposed operand: K and V tiles are only copied row by row (K's rows {@link #KEY_ROW}
 * floats apart when d allows), the query block is packed once per block, transposed and scaled
 * ({@code Qpᵀ[t, r]} at {@code t·w + r} inside its strip), and the probabilities come out of the
 * softmax pass already transposed ({@code Pᵀ}).
 */
final class VectorTileOps extends TileOps {

    private static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED;
    private static final int LANES = SPECIES.length();
    /** Queries per full strip: two vectors. */
    private static final int W = 2 * LANES;
    /** Keys per scores block: 6 × 2 accumulators + 3 operands = 15 of AVX2's 16 vector registers. */
    static final int KEYS = 6;
    /** Value columns per accumulate block: 6 × 2 accumulators, like {@link #KEYS}; dv = 64 ends with one block of 4. */
    static final int COLUMNS = 6;
    /**
     * Value columns per accumulate block with AVX-512's 32 registers: each loaded P vector feeds
     * 8 FMAs instead of 6 (the P·V kernel alone runs 1.08× as fast on Zen 4), with the same bits.
     * The score kernel gains nothing from 8 keys, so {@link #KEYS} stays 6.
     */
    static final int WIDE_COLUMNS_AVX512 = 8;
    /** Whether {@link #accumulate2} starts with {@value #WIDE_COLUMNS_AVX512}-column blocks: with 32 vector registers. */
    private static final boolean WIDE_COLUMNS = LANES >= 16;
    /** Query rows per block with AVX-512 ({@link #defaultQueryBlock}). */
    static final int WIDE_QUERY_BLOCK = 1024;
    /** Distance between key rows on the score kernel's fast path: see {@link Workspace#KEY_ROW}. */
    private static final int KEY_ROW = Workspace.KEY_ROW;

    VectorTileOps() {
        super(new VectorSoftmax());
    }

    /**
     * With AVX-512 (16-lane vectors, 32 registers) the micro-kernels run the products near the
     * FMA peak and need no packing of their operands beyond the tile copies, which a BLAS repeats
     * in every call: the whole kernel is ahead of the native BLAS path from n = 512 on. With AVX2
     * the BLAS path is ahead, so narrower vectors keep the BLAS (BENCHMARKS.md has the figures).
     */
    @Override
    boolean preferredOverNativeBlas() {
        return LANES >= 16;
    }

    /**
     * With AVX-512, {@value #WIDE_QUERY_BLOCK} query rows per block: every strip of the block reads
     * the key tile the block copied (scratch, K and V rows 4 KiB apart in the input), so the copies
     * happen a quarter as often as with 256 rows, and the strip's own working set (its packed
     * queries, accumulator and scores) does not grow: 1024×256 tiles run 1.04–1.18× as fast as
     * 256×256 at n = 512…4096 on Zen 4. With AVX2 (16-query strips) the blocks stay at 256.
     */
    @Override
    int defaultQueryBlock() {
        return LANES >= 16 ? WIDE_QUERY_BLOCK : super.defaultQueryBlock();
    }

    /** Strips are already narrow: the same on edge tiles (the packed queries are laid out per strip). */
    @Override
    int strip(int remaining, boolean edge) {
        return remaining >= W ? W : remaining >= LANES ? LANES : remaining;
    }

    /** A strip's scores are one or two vectors per key: contiguous lines already. */
    @Override
    int scoreStride(int w) {
        return w;
    }

    @Override
    int accOffset(int r0, int bq, int dv) {
        return r0 * dv;
    }

    @Override
    int accQueryStride(int dv) {
        return 1;
    }

    @Override
    int accColumnStride(int w, int bq) {
        return w;
    }

    @Override
    boolean packsKeyValues() {
        return true;
    }

    /** Transposed per strip and scaled: the micro-kernels multiply nothing else. */
    @Override
    float packQueries(int rows, int d, float scale, float[] q, int qOff, int ldq, float[] qp) {
        for (int r0 = 0, w; r0 < rows; r0 += w) {
            w = strip(rows - r0, false);
            int base = r0 * d;
            for (int r = 0; r < w; r++) {
                int src = qOff + (r0 + r) * ldq;
                for (int t = 0; t < d; t++) {
                    qp[base + t * w + r] = scale * q[src + t];
                }
            }
        }
        return 1f;
    }

    /** {@code alpha} is 1 ({@link #packQueries} scaled) and {@code lds} is {@code w} ({@link #scoreStride}). */
    @Override
    void scores(int w, int nk, int d, float alpha, float[] qp, int qpOff, float[] k, int kOff, int ldk, float[] s,
                int lds) {
        if (w == W) {
            scores2(nk, d, qp, qpOff, k, kOff, ldk, s);
        } else if (w == LANES) {
            scores1(nk, d, qp, qpOff, k, kOff, ldk, s);
        } else {
            scoresScalar(w, nk, d, qp, qpOff, k, kOff, ldk, s);
        }
    }

    /** {@code lds} and {@code ldacc} are always {@code w} here ({@link #scoreStride}, {@link #accColumnStride}): the kernels use their strip width. */
    @Override
    void accumulate(int w, int nk, int dv, float[] p, int lds, float[] v, int vOff, int ldv, float[] acc, int accOff,
                    int ldacc) {
        if (w == W) {
            accumulate2(nk, dv, p, v, vOff, ldv, acc, accOff);
        } else if (w == LANES) {
            accumulate1(nk, dv, p, v, vOff, ldv, acc, accOff);
        } else {
            accumulateScalar(w, nk, dv, p, v, vOff, ldv, acc, accOff);
        }
    }

    /** See {@link VectorKeyProducts}. */
    @Override
    void accumulateKeys(int w, int nk, int n, float alpha, float[] p, int lds, float[] b, int bOff, int ldb,
                        float[] c, int cOff, int ldc) {
        VectorKeyProducts.accumulateKeys(w, nk, n, alpha, p, lds, b, bOff, ldb, c, cOff, ldc);
    }

    @Override
    public String name() {
        return "vector:" + SPECIES.vectorBitSize() + "-bit+" + softmax().name();
    }

    // ---------------------------------------------------------------------------------------
    // scores: s[c·W + r] = Σₜ k[kOff + c·ldk + t] · qp[qpOff + t·W + r]
    // ---------------------------------------------------------------------------------------

    /** Two-vector strip: blocks of KEYS keys × 2 vectors, then pairs, then one key. */
    private static void scores2(int nk, int d, float[] qp, int qpOff, float[] k, int kOff, int ldk, float[] s) {
        int c = ldk == KEY_ROW ? scores2Fixed(nk, d, qp, qpOff, k, kOff, s) : 0;
        for (; c + KEYS <= nk; c += KEYS) {
            final int k0 = kOff + c * ldk, k1 = k0 + ldk, k2 = k1 + ldk, k3 = k2 + ldk, k4 = k3 + ldk, k5 = k4 + ldk;
            FloatVector a00 = FloatVector.zero(SPECIES), a01 = a00, a10 = a00, a11 = a00, a20 = a00, a21 = a00;
            FloatVector a30 = a00, a31 = a00, a40 = a00, a41 = a00, a50 = a00, a51 = a00;
            for (int t = 0, q = qpOff; t < d; t++, q += W) {
                final FloatVector b0 = FloatVector.fromArray(SPECIES, qp, q);
                final FloatVector b1 = FloatVector.fromArray(SPECIES, qp, q + LANES);
                FloatVector x = FloatVector.broadcast(SPECIES, k[k0 + t]);
                a00 = x.fma(b0, a00);
                a01 = x.fma(b1, a01);
                x = FloatVector.broadcast(SPECIES, k[k1 + t]);
                a10 = x.fma(b0, a10);
                a11 = x.fma(b1, a11);
                x = FloatVector.broadcast(SPECIES, k[k2 + t]);
                a20 = x.fma(b0, a20);
                a21 = x.fma(b1, a21);
                x = FloatVector.broadcast(SPECIES, k[k3 + t]);
                a30 = x.fma(b0, a30);
                a31 = x.fma(b1, a31);
                x = FloatVector.broadcast(SPECIES, k[k4 + t]);
                a40 = x.fma(b0, a40);
                a41 = x.fma(b1, a41);
                x = FloatVector.broadcast(SPECIES, k[k5 + t]);
                a50 = x.fma(b0, a50);
                a51 = x.fma(b1, a51);
            }
            int o = c * W;
            a00.intoArray(s, o);
            a01.intoArray(s, o + LANES);
            a10.intoArray(s, o + W);
            a11.intoArray(s, o + W + LANES);
            a20.intoArray(s, o + 2 * W);
            a21.intoArray(s, o + 2 * W + LANES);
            a30.intoArray(s, o + 3 * W);
            a31.intoArray(s, o + 3 * W + LANES);
            a40.intoArray(s, o + 4 * W);
            a41.intoArray(s, o + 4 * W + LANES);
            a50.intoArray(s, o + 5 * W);
            a51.intoArray(s, o + 5 * W + LANES);
        }
        for (; c + 2 <= nk; c += 2) {
            final int k0 = kOff + c * ldk, k1 = k0 + ldk;
            FloatVector a00 = FloatVector.zero(SPECIES), a01 = a00, a10 = a00, a11 = a00;
            for (int t = 0, q = qpOff; t < d; t++, q += W) {
                final FloatVector b0 = FloatVector.fromArray(SPECIES, qp, q);
                final FloatVector b1 = FloatVector.fromArray(SPECIES, qp, q + LANES);
                FloatVector x = FloatVector.broadcast(SPECIES, k[k0 + t]);
                a00 = x.fma(b0, a00);
                a01 = x.fma(b1, a01);
                x = FloatVector.broadcast(SPECIES, k[k1 + t]);
                a10 = x.fma(b0, a10);
                a11 = x.fma(b1, a11);
            }
            a00.intoArray(s, c * W);
            a01.intoArray(s, c * W + LANES);
            a10.intoArray(s, c * W + W);
            a11.intoArray(s, c * W + W + LANES);
        }
        if (c < nk) {
            final int k0 = kOff + c * ldk;
            FloatVector a0 = FloatVector.zero(SPECIES), a1 = a0;
            for (int t = 0, q = qpOff; t < d; t++, q += W) {
                FloatVector x = FloatVector.broadcast(SPECIES, k[k0 + t]);
                a0 = x.fma(FloatVector.fromArray(SPECIES, qp, q), a0);
                a1 = x.fma(FloatVector.fromArray(SPECIES, qp, q + LANES), a1);
            }
            a0.intoArray(s, c * W);
            a1.intoArray(s, c * W + LANES);
        }
    }

    /**
     * {@link #scores2}'s blocks of KEYS keys when key rows are {@link #KEY_ROW} floats apart: one
     * index {@code i} for all six rows. Returns the keys done (the largest multiple of KEYS ≤ nk).
     */
    private static int scores2Fixed(int nk, int d, float[] qp, int qpOff, float[] k, int kOff, float[] s) {
        int c = 0;
        for (; c + KEYS <= nk; c += KEYS) {
            final int k0 = kOff + c * KEY_ROW;
            FloatVector a00 = FloatVector.zero(SPECIES), a01 = a00, a10 = a00, a11 = a00, a20 = a00, a21 = a00;
            FloatVector a30 = a00, a31 = a00, a40 = a00, a41 = a00, a50 = a00, a51 = a00;
            for (int t = 0; t < d; t++) {
                final int i = k0 + t, q = qpOff + t * W;
                final FloatVector b0 = FloatVector.fromArray(SPECIES, qp, q);
                final FloatVector b1 = FloatVector.fromArray(SPECIES, qp, q + LANES);
                FloatVector x = FloatVector.broadcast(SPECIES, k[i]);
                a00 = x.fma(b0, a00);
                a01 = x.fma(b1, a01);
                x = FloatVector.broadcast(SPECIES, k[i + KEY_ROW]);
                a10 = x.fma(b0, a10);
                a11 = x.fma(b1, a11);
                x = FloatVector.broadcast(SPECIES, k[i + 2 * KEY_ROW]);
                a20 = x.fma(b0, a20);
                a21 = x.fma(b1, a21);
                x = FloatVector.broadcast(SPECIES, k[i + 3 * KEY_ROW]);
                a30 = x.fma(b0, a30);
                a31 = x.fma(b1, a31);
                x = FloatVector.broadcast(SPECIES, k[i + 4 * KEY_ROW]);
                a40 = x.fma(b0, a40);
                a41 = x.fma(b1, a41);
                x = FloatVector.broadcast(SPECIES, k[i + 5 * KEY_ROW]);
                a50 = x.fma(b0, a50);
                a51 = x.fma(b1, a51);
            }
            final int o = c * W;
            a00.intoArray(s, o);
            a01.intoArray(s, o + LANES);
            a10.intoArray(s, o + W);
            a11.intoArray(s, o + W + LANES);
            a20.intoArray(s, o + 2 * W);
            a21.intoArray(s, o + 2 * W + LANES);
            a30.intoArray(s, o + 3 * W);
            a31.intoArray(s, o + 3 * W + LANES);
            a40.intoArray(s, o + 4 * W);
            a41.intoArray(s, o + 4 * W + LANES);
            a50.intoArray(s, o + 5 * W);
            a51.intoArray(s, o + 5 * W + LANES);
        }
        return c;
    }

    /** One-vector strip: blocks of KEYS keys × 1 vector, then single keys. */
    private static void scores1(int nk, int d, float[] qp, int qpOff, float[] k, int kOff, int ldk, float[] s) {
        int c = 0;
        for (; c + KEYS <= nk; c += KEYS) {
            final int k0 = kOff + c * ldk, k1 = k0 + ldk, k2 = k1 + ldk, k3 = k2 + ldk, k4 = k3 + ldk, k5 = k4 + ldk;
            FloatVector a0 = FloatVector.zero(SPECIES), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0;
            for (int t = 0, q = qpOff; t < d; t++, q += LANES) {
                final FloatVector b = FloatVector.fromArray(SPECIES, qp, q);
                a0 = FloatVector.broadcast(SPECIES, k[k0 + t]).fma(b, a0);
                a1 = FloatVector.broadcast(SPECIES, k[k1 + t]).fma(b, a1);
                a2 = FloatVector.broadcast(SPECIES, k[k2 + t]).fma(b, a2);
                a3 = FloatVector.broadcast(SPECIES, k[k3 + t]).fma(b, a3);
                a4 = FloatVector.broadcast(SPECIES, k[k4 + t]).fma(b, a4);
                a5 = FloatVector.broadcast(SPECIES, k[k5 + t]).fma(b, a5);
            }
            int o = c * LANES;
            a0.intoArray(s, o);
            a1.intoArray(s, o + LANES);
            a2.intoArray(s, o + 2 * LANES);
            a3.intoArray(s, o + 3 * LANES);
            a4.intoArray(s, o + 4 * LANES);
            a5.intoArray(s, o + 5 * LANES);
        }
        for (; c < nk; c++) {
            final int k0 = kOff + c * ldk;
            FloatVector a = FloatVector.zero(SPECIES);
            for (int t = 0, q = qpOff; t < d; t++, q += LANES) {
                a = FloatVector.broadcast(SPECIES, k[k0 + t]).fma(FloatVector.fromArray(SPECIES, qp, q), a);
            }
            a.intoArray(s, c * LANES);
        }
    }

    /** Narrow strip (w < LANES): plain loops. */
    private static void scoresScalar(int w, int nk, int d, float[] qp, int qpOff, float[] k, int kOff, int ldk,
                                     float[] s) {
        for (int c = 0; c < nk; c++) {
            final int k0 = kOff + c * ldk;
            for (int r = 0; r < w; r++) {
                float sum = 0f;
                for (int t = 0, q = qpOff + r; t < d; t++, q += w) {
                    sum += k[k0 + t] * qp[q];
                }
                s[c * w + r] = sum;
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // accumulate: acc[accOff + t·W + r] += Σ_c v[vOff + c·ldv + t] · p[c·W + r]
    // ---------------------------------------------------------------------------------------

    /**
     * Two-vector strip: with AVX-512 blocks of {@value #WIDE_COLUMNS_AVX512} value columns first; then blocks of
     * {@value #COLUMNS} × 2 vectors, one block of 4, and single columns.
     */
    private static void accumulate2(int nk, int dv, float[] p, float[] v, int vOff, int ldv, float[] acc, int accOff) {
        int t = WIDE_COLUMNS ? accumulate2Wide(nk, dv, p, v, vOff, ldv, acc, accOff) : 0;
        for (; t + COLUMNS <= dv; t += COLUMNS) {
            final int o = accOff + t * W;
            FloatVector a00 = FloatVector.fromArray(SPECIES, acc, o);
            FloatVector a01 = FloatVector.fromArray(SPECIES, acc, o + LANES);
            FloatVector a10 = FloatVector.fromArray(SPECIES, acc, o + W);
            FloatVector a11 = FloatVector.fromArray(SPECIES, acc, o + W + LANES);
            FloatVector a20 = FloatVector.fromArray(SPECIES, acc, o + 2 * W);
            FloatVector a21 = FloatVector.fromArray(SPECIES, acc, o + 2 * W + LANES);
            FloatVector a30 = FloatVector.fromArray(SPECIES, acc, o + 3 * W);
            FloatVector a31 = FloatVector.fromArray(SPECIES, acc, o + 3 * W + LANES);
            FloatVector a40 = FloatVector.fromArray(SPECIES, acc, o + 4 * W);
            FloatVector a41 = FloatVector.fromArray(SPECIES, acc, o + 4 * W + LANES);
            FloatVector a50 = FloatVector.fromArray(SPECIES, acc, o + 5 * W);
            FloatVector a51 = FloatVector.fromArray(SPECIES, acc, o + 5 * W + LANES);
            for (int c = 0, pi = 0, vi = vOff + t; c < nk; c++, pi += W, vi += ldv) {
                final FloatVector b0 = FloatVector.fromArray(SPECIES, p, pi);
                final FloatVector b1 = FloatVector.fromArray(SPECIES, p, pi + LANES);
                FloatVector x = FloatVector.broadcast(SPECIES, v[vi]);
                a00 = x.fma(b0, a00);
                a01 = x.fma(b1, a01);
                x = FloatVector.broadcast(SPECIES, v[vi + 1]);
                a10 = x.fma(b0, a10);
                a11 = x.fma(b1, a11);
                x = FloatVector.broadcast(SPECIES, v[vi + 2]);
                a20 = x.fma(b0, a20);
                a21 = x.fma(b1, a21);
                x = FloatVector.broadcast(SPECIES, v[vi + 3]);
                a30 = x.fma(b0, a30);
                a31 = x.fma(b1, a31);
                x = FloatVector.broadcast(SPECIES, v[vi + 4]);
                a40 = x.fma(b0, a40);
                a41 = x.fma(b1, a41);
                x = FloatVector.broadcast(SPECIES, v[vi + 5]);
                a50 = x.fma(b0, a50);
                a51 = x.fma(b1, a51);
            }
            a00.intoArray(acc, o);
            a01.intoArray(acc, o + LANES);
            a10.intoArray(acc, o + W);
            a11.intoArray(acc, o + W + LANES);
            a20.intoArray(acc, o + 2 * W);
            a21.intoArray(acc, o + 2 * W + LANES);
            a30.intoArray(acc, o + 3 * W);
            a31.intoArray(acc, o + 3 * W + LANES);
            a40.intoArray(acc, o + 4 * W);
            a41.intoArray(acc, o + 4 * W + LANES);
            a50.intoArray(acc, o + 5 * W);
            a51.intoArray(acc, o + 5 * W + LANES);
        }
        if (t + 4 <= dv) {
            final int o = accOff + t * W;
            FloatVector a00 = FloatVector.fromArray(SPECIES, acc, o);
            FloatVector a01 = FloatVector.fromArray(SPECIES, acc, o + LANES);
            FloatVector a10 = FloatVector.fromArray(SPECIES, acc, o + W);
            FloatVector a11 = FloatVector.fromArray(SPECIES, acc, o + W + LANES);
            FloatVector a20 = FloatVector.fromArray(SPECIES, acc, o + 2 * W);
            FloatVector a21 = FloatVector.fromArray(SPECIES, acc, o + 2 * W + LANES);
            FloatVector a30 = FloatVector.fromArray(SPECIES, acc, o + 3 * W);
            FloatVector a31 = FloatVector.fromArray(SPECIES, acc, o + 3 * W + LANES);
            for (int c = 0, pi = 0, vi = vOff + t; c < nk; c++, pi += W, vi += ldv) {
                final FloatVector b0 = FloatVector.fromArray(SPECIES, p, pi);
                final FloatVector b1 = FloatVector.fromArray(SPECIES, p, pi + LANES);
                FloatVector x = FloatVector.broadcast(SPECIES, v[vi]);
                a00 = x.fma(b0, a00);
                a01 = x.fma(b1, a01);
                x = FloatVector.broadcast(SPECIES, v[vi + 1]);
                a10 = x.fma(b0, a10);
                a11 = x.fma(b1, a11);
                x = FloatVector.broadcast(SPECIES, v[vi + 2]);
                a20 = x.fma(b0, a20);
                a21 = x.fma(b1, a21);
                x = FloatVector.broadcast(SPECIES, v[vi + 3]);
                a30 = x.fma(b0, a30);
                a31 = x.fma(b1, a31);
            }
            a00.intoArray(acc, o);
            a01.intoArray(acc, o + LANES);
            a10.intoArray(acc, o + W);
            a11.intoArray(acc, o + W + LANES);
            a20.intoArray(acc, o + 2 * W);
            a21.intoArray(acc, o + 2 * W + LANES);
            a30.intoArray(acc, o + 3 * W);
            a31.intoArray(acc, o + 3 * W + LANES);
            t += 4;
        }
        for (; t < dv; t++) {
            final int o = accOff + t * W;
            FloatVector a0 = FloatVector.fromArray(SPECIES, acc, o);
            FloatVector a1 = FloatVector.fromArray(SPECIES, acc, o + LANES);
            for (int c = 0, pi = 0, vi = vOff + t; c < nk; c++, pi += W, vi += ldv) {
                FloatVector x = FloatVector.broadcast(SPECIES, v[vi]);
                a0 = x.fma(FloatVector.fromArray(SPECIES, p, pi), a0);
                a1 = x.fma(FloatVector.fromArray(SPECIES, p, pi + LANES), a1);
            }
            a0.intoArray(acc, o);
            a1.intoArray(acc, o + LANES);
        }
    }

    /**
     * {@link #accumulate2}'s blocks of {@value #WIDE_COLUMNS_AVX512} value columns, for 32 vector
     * registers (16 accumulators, 2 loaded vectors, 1 broadcast): each loaded P vector feeds 8
     * FMAs instead of 6, and dv = 64 needs no 4-column block. Returns the columns done (the
     * largest multiple of 8 ≤ dv).
     */
    private static int accumulate2Wide(int nk, int dv, float[] p, float[] v, int vOff, int ldv, float[] acc, int accOff) {
        int t = 0;
        for (; t + WIDE_COLUMNS_AVX512 <= dv; t += WIDE_COLUMNS_AVX512) {
            final int o = accOff + t * W;
            FloatVector a00 = FloatVector.fromArray(SPECIES, acc, o);
            FloatVector a01 = FloatVector.fromArray(SPECIES, acc, o + LANES);
            FloatVector a10 = FloatVector.fromArray(SPECIES, acc, o + W);
            FloatVector a11 = FloatVector.fromArray(SPECIES, acc, o + W + LANES);
            FloatVector a20 = FloatVector.fromArray(SPECIES, acc, o + 2 * W);
            FloatVector a21 = FloatVector.fromArray(SPECIES, acc, o + 2 * W + LANES);
            FloatVector a30 = FloatVector.fromArray(SPECIES, acc, o + 3 * W);
            FloatVector a31 = FloatVector.fromArray(SPECIES, acc, o + 3 * W + LANES);
            FloatVector a40 = FloatVector.fromArray(SPECIES, acc, o + 4 * W);
            FloatVector a41 = FloatVector.fromArray(SPECIES, acc, o + 4 * W + LANES);
            FloatVector a50 = FloatVector.fromArray(SPECIES, acc, o + 5 * W);
            FloatVector a51 = FloatVector.fromArray(SPECIES, acc, o + 5 * W + LANES);
            FloatVector a60 = FloatVector.fromArray(SPECIES, acc, o + 6 * W);
            FloatVector a61 = FloatVector.fromArray(SPECIES, acc, o + 6 * W + LANES);
            FloatVector a70 = FloatVector.fromArray(SPECIES, acc, o + 7 * W);
            FloatVector a71 = FloatVector.fromArray(SPECIES, acc, o + 7 * W + LANES);
            for (int c = 0, pi = 0, vi = vOff + t; c < nk; c++, pi += W, vi += ldv) {
                final FloatVector b0 = FloatVector.fromArray(SPECIES, p, pi);
                final FloatVector b1 = FloatVector.fromArray(SPECIES, p, pi + LANES);
                FloatVector x = FloatVector.broadcast(SPECIES, v[vi]);
                a00 = x.fma(b0, a00);
                a01 = x.fma(b1, a01);
                x = FloatVector.broadcast(SPECIES, v[vi + 1]);
                a10 = x.fma(b0, a10);
                a11 = x.fma(b1, a11);
                x = FloatVector.broadcast(SPECIES, v[vi + 2]);
                a20 = x.fma(b0, a20);
                a21 = x.fma(b1, a21);
                x = FloatVector.broadcast(SPECIES, v[vi + 3]);
                a30 = x.fma(b0, a30);
                a31 = x.fma(b1, a31);
                x = FloatVector.broadcast(SPECIES, v[vi + 4]);
                a40 = x.fma(b0, a40);
                a41 = x.fma(b1, a41);
                x = FloatVector.broadcast(SPECIES, v[vi + 5]);
                a50 = x.fma(b0, a50);
                a51 = x.fma(b1, a51);
                x = FloatVector.broadcast(SPECIES, v[vi + 6]);
                a60 = x.fma(b0, a60);
                a61 = x.fma(b1, a61);
                x = FloatVector.broadcast(SPECIES, v[vi + 7]);
                a70 = x.fma(b0, a70);
                a71 = x.fma(b1, a71);
            }
            a00.intoArray(acc, o);
            a01.intoArray(acc, o + LANES);
            a10.intoArray(acc, o + W);
            a11.intoArray(acc, o + W + LANES);
            a20.intoArray(acc, o + 2 * W);
            a21.intoArray(acc, o + 2 * W + LANES);
            a30.intoArray(acc, o + 3 * W);
            a31.intoArray(acc, o + 3 * W + LANES);
            a40.intoArray(acc, o + 4 * W);
            a41.intoArray(acc, o + 4 * W + LANES);
            a50.intoArray(acc, o + 5 * W);
            a51.intoArray(acc, o + 5 * W + LANES);
            a60.intoArray(acc, o + 6 * W);
            a61.intoArray(acc, o + 6 * W + LANES);
            a70.intoArray(acc, o + 7 * W);
            a71.intoArray(acc, o + 7 * W + LANES);
        }
        return t;
    }

    /** One-vector strip: blocks of 4 value columns × 1 vector, then single columns. */
    private static void accumulate1(int nk, int dv, float[] p, float[] v, int vOff, int ldv, float[] acc, int accOff) {
        int t = 0;
        for (; t + 4 <= dv; t += 4) {
            final int o = accOff + t * LANES;
            FloatVector a0 = FloatVector.fromArray(SPECIES, acc, o);
            FloatVector a1 = FloatVector.fromArray(SPECIES, acc, o + LANES);
            FloatVector a2 = FloatVector.fromArray(SPECIES, acc, o + 2 * LANES);
            FloatVector a3 = FloatVector.fromArray(SPECIES, acc, o + 3 * LANES);
            for (int c = 0, pi = 0, vi = vOff + t; c < nk; c++, pi += LANES, vi += ldv) {
                final FloatVector b = FloatVector.fromArray(SPECIES, p, pi);
                a0 = FloatVector.broadcast(SPECIES, v[vi]).fma(b, a0);
                a1 = FloatVector.broadcast(SPECIES, v[vi + 1]).fma(b, a1);
                a2 = FloatVector.broadcast(SPECIES, v[vi + 2]).fma(b, a2);
                a3 = FloatVector.broadcast(SPECIES, v[vi + 3]).fma(b, a3);
            }
            a0.intoArray(acc, o);
            a1.intoArray(acc, o + LANES);
            a2.intoArray(acc, o + 2 * LANES);
            a3.intoArray(acc, o + 3 * LANES);
        }
        for (; t < dv; t++) {
            final int o = accOff + t * LANES;
            FloatVector a = FloatVector.fromArray(SPECIES, acc, o);
            for (int c = 0, pi = 0, vi = vOff + t; c < nk; c++, pi += LANES, vi += ldv) {
                a = FloatVector.broadcast(SPECIES, v[vi]).fma(FloatVector.fromArray(SPECIES, p, pi), a);
            }
            a.intoArray(acc, o);
        }
    }

    /** Narrow strip (w < LANES): plain loops. */
    private static void accumulateScalar(int w, int nk, int dv, float[] p, float[] v, int vOff, int ldv,
                                         float[] acc, int accOff) {
        for (int c = 0; c < nk; c++) {
            final int vr = vOff + c * ldv, pr = c * w;
            for (int t = 0; t < dv; t++) {
                final float x = v[vr + t];
                final int o = accOff + t * w;
                for (int r = 0; r < w; r++) {
                    acc[o + r] += x * p[pr + r];
                }
            }
        }
    }
}

package io.sparkattention.kernel;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.Vector;
import jdk.incubator.vector.VectorSpecies;

import java.util.Arrays;

/**
 * {@link DirectAttention}'s arithmetic on the Java Vector API. Per head:
 * <pre>
 *   qT[t][j]   = q[j, t]                             d × Lp, queries across lanes, zero beyond L
 *   sT[c][j]   = scale · Σ_t k[c, t] · qT[t][j]      S × Lp  (key-major: one row per key)
 *   sT[c][j]   = exp(sT[c][j] − shift[j])            (VectorExp)
 *   vp[c][t]   = v[c, t]                             S × dp, zero beyond dv
 *   out[j, t]  = inv[j] · Σ_c sT[c][j] · vp[c][t]
 *   backward:  g[c, t] += α · Σ_j sT[c][j] · bp[j][t]   S × n, bp the L × n operand padded (dV, dK)
 * </pre>
 * Lp and dp are L and d rounded up to whole vectors. The score block is 4 keys × 2 query
 * vectors (8 accumulators fed by 2 loads and 4 broadcasts per step); the value block is 4
 * queries × 1 vector of d. No vector crosses a method boundary (see {@link VectorExp}).
 */
final class VectorDirectAttention extends DirectAttention.Impl {

    VectorDirectAttention() {
    }

    private static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED;
    /** The species' vector class: a cast to it gives C2 a vector's exact class (see VectorLinearKernel.block6x2). */
    private static final Class<? extends Vector<Float>> EXACT = VectorLinearKernel.EXACT;
    private static final int LANES = SPECIES.length();

    @Override
    int padded(int L) {
        return (L + LANES - 1) / LANES * LANES;
    }

    @Override
    void scores(float[] q, int qOff, int ldq, int L, float[] k, int kOff, int ldk, int S, int d, float scale,
                float[] sT, DirectAttention.Workspace ws) {
        int lp = padded(L);
        float[] qT = ws.queriesT;
        for (int t = 0; t < d; t++) {
            int dst = t * lp;
            for (int j = 0; j < L; j++) {
                qT[dst + j] = q[qOff + j * ldq + t];
            }
            Arrays.fill(qT, dst + L, dst + lp, 0f);
        }
        scores(k, ldk, kOff, S, d, lp, qT, sT, scale);
    }

    @Override
    void exp(float[] sT, int lp, int L, int S, float[] shift, float[] sum, boolean capHigh) {
        VectorExp.expShifted(sT, 0, lp, S, shift, 0, lp, sum, capHigh);
    }

    @Override
    void columnMax(float[] sT, int lp, int S, float[] max) {
        for (int j = 0; j < lp; j += LANES) {
            FloatVector m = FloatVector.broadcast(SPECIES, Float.NEGATIVE_INFINITY);
            for (int c = 0, i = j; c < S; c++, i += lp) {
                m = m.max(FloatVector.fromArray(SPECIES, sT, i));
            }
            m.intoArray(max, j);
        }
    }

    @Override
    void values(float[] sT, int lp, int L, int S, float[] v, int vOff, int ldv, int dv, float[] inv, float[] out,
                int oOff, int ldo, DirectAttention.Workspace ws) {
        int dp = padded(dv);
        float[] vp = ws.values;
        for (int c = 0; c < S; c++) {
            System.arraycopy(v, vOff + c * ldv, vp, c * dp, dv);
            Arrays.fill(vp, c * dp + dv, c * dp + dp, 0f);
        }
        values(sT, L, S, lp, vp, dp, dv, inv, out, ldo, oOff, ws.stage);
    }

    @Override
    void rowsTimes(float[] sT, int lp, int L, int S, float[] b, int bOff, int ldb, int n, float alpha, float[] out,
                   int oOff, int ldo, DirectAttention.Workspace ws) {
        int np = padded(n);
        float[] bp = ws.queriesT;  // L × np ≤ Lp × dp: free once the scores are computed
        for (int j = 0; j < L; j++) {
            System.arraycopy(b, bOff + j * ldb, bp, j * np, n);
            Arrays.fill(bp, j * np + n, (j + 1) * np, 0f);
        }
        rowsTimes(sT, lp, L, S, bp, np, n, alpha, out, oOff, ldo, ws.stage);
    }

    @Override
    String name() {
        return "vector:" + SPECIES.vectorBitSize() + "-bit";
    }

    /** {@code sT[c][0:lp] = scale · Σ_t k[kOff + c·row + t] · qT[t][0:lp]} for keys c &lt; S. */
    private static void scores(float[] qkv, int row, int kOff, int S, int d, int lp, float[] qT, float[] sT,
                               float scale) {
        int c = 0;
        for (; c + 4 <= S; c += 4) {
            int k0 = c * row + kOff, k1 = k0 + row, k2 = k1 + row, k3 = k2 + row;
            int j = 0;
            for (; j + 2 * LANES <= lp; j += 2 * LANES) {
                FloatVector a00 = FloatVector.zero(SPECIES), a01 = a00, a10 = a00, a11 = a00;
                FloatVector a20 = a00, a21 = a00, a30 = a00, a31 = a00;
                for (int t = 0, q = j; t < d; t++, q += lp) {
                    FloatVector q0 = FloatVector.fromArray(SPECIES, qT, q);
                    FloatVector q1 = FloatVector.fromArray(SPECIES, qT, q + LANES);
                    FloatVector b = FloatVector.broadcast(SPECIES, qkv[k0 + t]);
                    a00 = b.fma(q0, a00);
                    a01 = b.fma(q1, a01);
                    b = FloatVector.broadcast(SPECIES, qkv[k1 + t]);
                    a10 = b.fma(q0, a10);
                    a11 = b.fma(q1, a11);
                    b = FloatVector.broadcast(SPECIES, qkv[k2 + t]);
                    a20 = b.fma(q0, a20);
                    a21 = b.fma(q1, a21);
                    b = FloatVector.broadcast(SPECIES, qkv[k3 + t]);
                    a30 = b.fma(q0, a30);
                    a31 = b.fma(q1, a31);
                }
                // Each sum cast to its exact class before its store (see VectorLinearKernel.block6x2).
                int s = c * lp + j;
                ((FloatVector) EXACT.cast(a00.mul(scale))).intoArray(sT, s);
                ((FloatVector) EXACT.cast(a01.mul(scale))).intoArray(sT, s + LANES);
                ((FloatVector) EXACT.cast(a10.mul(scale))).intoArray(sT, s + lp);
                ((FloatVector) EXACT.cast(a11.mul(scale))).intoArray(sT, s + lp + LANES);
                ((FloatVector) EXACT.cast(a20.mul(scale))).intoArray(sT, s + 2 * lp);
                ((FloatVector) EXACT.cast(a21.mul(scale))).intoArray(sT, s + 2 * lp + LANES);
                ((FloatVector) EXACT.cast(a30.mul(scale))).intoArray(sT, s + 3 * lp);
                ((FloatVector) EXACT.cast(a31.mul(scale))).intoArray(sT, s + 3 * lp + LANES);
            }
            for (; j < lp; j += LANES) {
                FloatVector a0 = FloatVector.zero(SPECIES), a1 = a0, a2 = a0, a3 = a0;
                for (int t = 0, q = j; t < d; t++, q += lp) {
                    FloatVector q0 = FloatVector.fromArray(SPECIES, qT, q);
                    a0 = FloatVector.broadcast(SPECIES, qkv[k0 + t]).fma(q0, a0);
                    a1 = FloatVector.broadcast(SPECIES, qkv[k1 + t]).fma(q0, a1);
                    a2 = FloatVector.broadcast(SPECIES, qkv[k2 + t]).fma(q0, a2);
                    a3 = FloatVector.broadcast(SPECIES, qkv[k3 + t]).fma(q0, a3);
                }
                int s = c * lp + j;
                ((FloatVector) EXACT.cast(a0.mul(scale))).intoArray(sT, s);
                ((FloatVector) EXACT.cast(a1.mul(scale))).intoArray(sT, s + lp);
                ((FloatVector) EXACT.cast(a2.mul(scale))).intoArray(sT, s + 2 * lp);
                ((FloatVector) EXACT.cast(a3.mul(scale))).intoArray(sT, s + 3 * lp);
            }
        }
        for (; c < S; c++) {
            oneKeyScores(qkv, c * row + kOff, d, lp, qT, sT, c * lp, scale);
        }
    }

    /**
     * One key's row of scores, {@code sT[s : s+lp] = scale · Σ_t qkv[k + t] · qT[t][0:lp]}: the last
     * S mod 4 keys. A method of its own: at the end of {@link #scores}, past C2's node budget on JDK
     * 17, its vector operations were left as calls and its accumulator boxed on every store.
     */
    private static void oneKeyScores(float[] qkv, int k, int d, int lp, float[] qT, float[] sT, int s, float scale) {
        for (int j = 0; j < lp; j += LANES) {
            FloatVector a0 = FloatVector.zero(SPECIES);
            for (int t = 0, q = j; t < d; t++, q += lp) {
                a0 = FloatVector.broadcast(SPECIES, qkv[k + t]).fma(FloatVector.fromArray(SPECIES, qT, q), a0);
            }
            a0.mul(scale).intoArray(sT, s + j);
        }
    }

    /**
     * {@code ctx[col + j·E + t] = inv[j] · Σ_c sT[c][j] · vp[c][t]} for j &lt; L, t &lt; d (c &lt; S): 4
     * queries at a time, dp/LANES vectors of values. {@code out} (at least one vector long) stages a
     * partial last vector.
     */
    private static void values(float[] sT, int L, int S, int lp, float[] vp, int dp, int d, float[] inv, float[] ctx,
                               int E, int col, float[] out) {
        int j = 0;
        for (; j + 4 <= L; j += 4) {
            for (int t0 = 0; t0 < dp; t0 += LANES) {
                FloatVector a0 = FloatVector.zero(SPECIES), a1 = a0, a2 = a0, a3 = a0;
                for (int c = 0, s = j, v = t0; c < S; c++, s += lp, v += dp) {
                    FloatVector w = FloatVector.fromArray(SPECIES, vp, v);
                    a0 = FloatVector.broadcast(SPECIES, sT[s]).fma(w, a0);
                    a1 = FloatVector.broadcast(SPECIES, sT[s + 1]).fma(w, a1);
                    a2 = FloatVector.broadcast(SPECIES, sT[s + 2]).fma(w, a2);
                    a3 = FloatVector.broadcast(SPECIES, sT[s + 3]).fma(w, a3);
                }
                int n = Math.min(LANES, d - t0);
                if (n == LANES) {
                    a0.mul(inv[j]).intoArray(ctx, j * E + col + t0);
                    a1.mul(inv[j + 1]).intoArray(ctx, (j + 1) * E + col + t0);
                    a2.mul(inv[j + 2]).intoArray(ctx, (j + 2) * E + col + t0);
                    a3.mul(inv[j + 3]).intoArray(ctx, (j + 3) * E + col + t0);
                } else {
                    a0.mul(inv[j]).intoArray(out, 0);
                    System.arraycopy(out, 0, ctx, j * E + col + t0, n);
                    a1.mul(inv[j + 1]).intoArray(out, 0);
                    System.arraycopy(out, 0, ctx, (j + 1) * E + col + t0, n);
                    a2.mul(inv[j + 2]).intoArray(out, 0);
                    System.arraycopy(out, 0, ctx, (j + 2) * E + col + t0, n);
                    a3.mul(inv[j + 3]).intoArray(out, 0);
                    System.arraycopy(out, 0, ctx, (j + 3) * E + col + t0, n);
                }
            }
        }
        for (; j < L; j++) {
            for (int t0 = 0; t0 < dp; t0 += LANES) {
                FloatVector a0 = FloatVector.zero(SPECIES);
                for (int c = 0, s = j, v = t0; c < S; c++, s += lp, v += dp) {
                    a0 = FloatVector.broadcast(SPECIES, sT[s]).fma(FloatVector.fromArray(SPECIES, vp, v), a0);
                }
                int n = Math.min(LANES, d - t0);
                a0 = a0.mul(inv[j]);
                if (n == LANES) {
                    a0.intoArray(ctx, j * E + col + t0);
                } else {
                    a0.intoArray(out, 0);
                    System.arraycopy(out, 0, ctx, j * E + col + t0, n);
                }
            }
        }
    }

    /**
     * {@code out[oOff + c·ldo + t] += alpha · Σ_j sT[c][j] · bp[j][t]} for c &lt; S, t &lt; n (j &lt; L):
     * 4 keys at a time, np/LANES vectors of bp's padded rows. {@code stage} (at least one vector
     * long) stages a partial last vector.
     */
    private static void rowsTimes(float[] sT, int lp, int L, int S, float[] bp, int np, int n, float alpha,
                                  float[] out, int oOff, int ldo, float[] stage) {
        int c = 0;
        for (; c + 4 <= S; c += 4) {
            int s0 = c * lp, s1 = s0 + lp, s2 = s1 + lp, s3 = s2 + lp;
            for (int t0 = 0; t0 < np; t0 += LANES) {
                FloatVector a0 = FloatVector.zero(SPECIES), a1 = a0, a2 = a0, a3 = a0;
                for (int j = 0, v = t0; j < L; j++, v += np) {
                    FloatVector w = FloatVector.fromArray(SPECIES, bp, v);
                    a0 = FloatVector.broadcast(SPECIES, sT[s0 + j]).fma(w, a0);
                    a1 = FloatVector.broadcast(SPECIES, sT[s1 + j]).fma(w, a1);
                    a2 = FloatVector.broadcast(SPECIES, sT[s2 + j]).fma(w, a2);
                    a3 = FloatVector.broadcast(SPECIES, sT[s3 + j]).fma(w, a3);
                }
                int o = oOff + c * ldo + t0, rem = Math.min(LANES, n - t0);
                if (rem == LANES) {
                    FloatVector.fromArray(SPECIES, out, o).add(a0.mul(alpha)).intoArray(out, o);
                    FloatVector.fromArray(SPECIES, out, o + ldo).add(a1.mul(alpha)).intoArray(out, o + ldo);
                    FloatVector.fromArray(SPECIES, out, o + 2 * ldo).add(a2.mul(alpha)).intoArray(out, o + 2 * ldo);
                    FloatVector.fromArray(SPECIES, out, o + 3 * ldo).add(a3.mul(alpha)).intoArray(out, o + 3 * ldo);
                } else {
                    a0.mul(alpha).intoArray(stage, 0);
                    addStaged(stage, rem, out, o);
                    a1.mul(alpha).intoArray(stage, 0);
                    addStaged(stage, rem, out, o + ldo);
                    a2.mul(alpha).intoArray(stage, 0);
                    addStaged(stage, rem, out, o + 2 * ldo);
                    a3.mul(alpha).intoArray(stage, 0);
                    addStaged(stage, rem, out, o + 3 * ldo);
                }
            }
        }
        for (; c < S; c++) {
            int s0 = c * lp;
            for (int t0 = 0; t0 < np; t0 += LANES) {
                FloatVector a0 = FloatVector.zero(SPECIES);
                for (int j = 0, v = t0; j < L; j++, v += np) {
                    a0 = FloatVector.broadcast(SPECIES, sT[s0 + j]).fma(FloatVector.fromArray(SPECIES, bp, v), a0);
                }
                int o = oOff + c * ldo + t0, rem = Math.min(LANES, n - t0);
                if (rem == LANES) {
                    FloatVector.fromArray(SPECIES, out, o).add(a0.mul(alpha)).intoArray(out, o);
                } else {
                    a0.mul(alpha).intoArray(stage, 0);
                    addStaged(stage, rem, out, o);
                }
            }
        }
    }

    /** {@code out[o + t] += stage[t]} for t &lt; n. */
    private static void addStaged(float[] stage, int n, float[] out, int o) {
        for (int t = 0; t < n; t++) {
            out[o + t] += stage[t];
        }
    }
}

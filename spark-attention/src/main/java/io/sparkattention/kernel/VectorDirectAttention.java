package io.sparkattention.kernel;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

import java.util.Arrays;

/**
 * {@link DirectAttention} on the Java Vector API. Per head:
 * <pre>
 *   qT[t][j]   = q[j, h·d + t]                       d × Lp, queries across lanes, zero beyond L
 *   sT[c][j]   = scale · Σ_t k[c, h·d + t] · qT[t][j]  L × Lp  (key-major: one row per key)
 *   m[j] = max_c sT[c][j];  sT[c][j] = exp(sT[c][j] − m[j]);  ℓ[j] = Σ_c sT[c][j]   (VectorExp)
 *   vp[c][t]   = v[c, h·d + t]                       L × dp, zero beyond d
 *   ctx[j, h·d + t] = (Σ_c sT[c][j] · vp[c][t]) / ℓ[j]
 * </pre>
 * Lp and dp are L and d rounded up to whole vectors. The score block is 4 keys × 2 query
 * vectors (8 accumulators fed by 2 loads and 4 broadcasts per step); the value block is 4
 * queries × 1 vector of d. No vector crosses a method boundary (see {@link VectorExp}).
 */
final class VectorDirectAttention extends DirectAttention.Impl {

    private static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED;
    private static final int LANES = SPECIES.length();

    @Override
    void run(float[] qkv, int qkvOff, int L, int H, int d, float scale, float[] ctx, int ctxOff, float[] probs,
             DirectAttention.Workspace ws) {
        int E = H * d, row = 3 * E;
        int lp = (L + LANES - 1) / LANES * LANES;
        int dp = (d + LANES - 1) / LANES * LANES;
        ws.ensure(lp, dp, L);
        float[] qT = ws.queriesT, sT = ws.scores, vp = ws.values, max = ws.rowMax, sum = ws.rowSum;
        for (int h = 0; h < H; h++) {
            int qOff = qkvOff + h * d, kOff = qkvOff + E + h * d, vOff = qkvOff + 2 * E + h * d;
            for (int t = 0; t < d; t++) {
                int dst = t * lp;
                for (int j = 0; j < L; j++) {
                    qT[dst + j] = qkv[j * row + qOff + t];
                }
                Arrays.fill(qT, dst + L, dst + lp, 0f);
            }
            scores(qkv, row, kOff, L, d, lp, qT, sT, scale);
            columnMax(sT, L, lp, max);
            Arrays.fill(sum, 0, lp, 0f);
            VectorExp.expShifted(sT, 0, lp, L, max, 0, lp, sum, false);
            for (int c = 0; c < L; c++) {
                System.arraycopy(qkv, c * row + vOff, vp, c * dp, d);
                Arrays.fill(vp, c * dp + d, c * dp + dp, 0f);
            }
            for (int j = 0; j < L; j++) {
                sum[j] = 1f / sum[j];
            }
            values(sT, L, lp, vp, dp, d, sum, ctx, E, ctxOff + h * d, max);
            if (probs != null) {
                int base = h * L * L;
                for (int j = 0; j < L; j++) {
                    float inv = sum[j];
                    for (int c = 0; c < L; c++) {
                        probs[base + j * L + c] = sT[c * lp + j] * inv;
                    }
                }
            }
        }
    }

    /** {@code sT[c][0:lp] = scale · Σ_t k[c, kOff + t] · qT[t][0:lp]} for every key c. */
    private static void scores(float[] qkv, int row, int kOff, int L, int d, int lp, float[] qT, float[] sT,
                               float scale) {
        int c = 0;
        for (; c + 4 <= L; c += 4) {
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
                int s = c * lp + j;
                a00.mul(scale).intoArray(sT, s);
                a01.mul(scale).intoArray(sT, s + LANES);
                a10.mul(scale).intoArray(sT, s + lp);
                a11.mul(scale).intoArray(sT, s + lp + LANES);
                a20.mul(scale).intoArray(sT, s + 2 * lp);
                a21.mul(scale).intoArray(sT, s + 2 * lp + LANES);
                a30.mul(scale).intoArray(sT, s + 3 * lp);
                a31.mul(scale).intoArray(sT, s + 3 * lp + LANES);
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
                a0.mul(scale).intoArray(sT, s);
                a1.mul(scale).intoArray(sT, s + lp);
                a2.mul(scale).intoArray(sT, s + 2 * lp);
                a3.mul(scale).intoArray(sT, s + 3 * lp);
            }
        }
        for (; c < L; c++) {
            int k0 = c * row + kOff;
            for (int j = 0; j < lp; j += LANES) {
                FloatVector a0 = FloatVector.zero(SPECIES);
                for (int t = 0, q = j; t < d; t++, q += lp) {
                    a0 = FloatVector.broadcast(SPECIES, qkv[k0 + t]).fma(FloatVector.fromArray(SPECIES, qT, q), a0);
                }
                a0.mul(scale).intoArray(sT, c * lp + j);
            }
        }
    }

    /** {@code max[j] = max_c sT[c][j]} for j &lt; lp. */
    private static void columnMax(float[] sT, int L, int lp, float[] max) {
        for (int j = 0; j < lp; j += LANES) {
            FloatVector m = FloatVector.fromArray(SPECIES, sT, j);
            for (int c = 1; c < L; c++) {
                m = m.max(FloatVector.fromArray(SPECIES, sT, c * lp + j));
            }
            m.intoArray(max, j);
        }
    }

    /**
     * {@code ctx[j, col + t] = inv[j] · Σ_c sT[c][j] · vp[c][t]} for t &lt; d: 4 queries at a time,
     * dp/LANES vectors of values. {@code out} (at least one vector long) stages a partial last vector.
     */
    private static void values(float[] sT, int L, int lp, float[] vp, int dp, int d, float[] inv, float[] ctx, int E,
                               int col, float[] out) {
        int j = 0;
        for (; j + 4 <= L; j += 4) {
            for (int t0 = 0; t0 < dp; t0 += LANES) {
                FloatVector a0 = FloatVector.zero(SPECIES), a1 = a0, a2 = a0, a3 = a0;
                for (int c = 0, s = j, v = t0; c < L; c++, s += lp, v += dp) {
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
                for (int c = 0, s = j, v = t0; c < L; c++, s += lp, v += dp) {
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
}

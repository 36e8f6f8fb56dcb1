package io.sparkattention.kernel;

import java.util.Arrays;

/**
 * The attention backward pass computed the plain way: per head, the L×S probabilities are
 * rebuilt from the forward's log-sum-exp and every product is a double loop in float64.
 *
 * <p>Shapes: q L×(H·d), k S×(Hkv·d), v S×(Hkv·dv), out and dOut L×(H·dv), lse H×L; dq, dk, dv as
 * q, k, v; dBias as the mask's bias (L×S summed over heads, or H×L×S).
 */
final class NaiveBackward {

    private NaiveBackward() {
    }

    static void run(AttentionSpec spec, AttentionShape shape, float[] q, float[] k, float[] v, RowMask mask,
                    float[] out, float[] lse, float[] dOut, float[] dq, float[] dk, float[] dv, float[] dBias) {
        int L = shape.queryLength(), S = shape.keyLength(), H = shape.numHeads(), Hkv = shape.numKvHeads();
        int d = shape.headDim(), dvw = shape.valueDim();
        float scale = spec.scaleFor(d);
        KeyBand band = new KeyBand(spec, L, S, mask.validKeys(S));
        boolean[] allowed = mask.allowed();
        float[] bias = mask.bias();
        double[] gq = new double[dq.length], gk = new double[dk.length], gv = new double[dv.length];
        double[] gb = dBias == null ? null : new double[dBias.length];
        double[] p = new double[S];
        for (int h = 0; h < H; h++) {
            int kv = shape.kvHeadOf(h);
            int aOff = allowed == null ? 0 : RowMask.headOffset(allowed.length, h, L, S);
            int bOff = bias == null ? 0 : RowMask.headOffset(bias.length, h, L, S);
            for (int i = 0; i < L; i++) {
                float m = lse[h * L + i];
                if (m == Float.NEGATIVE_INFINITY) {
                    continue;  // a fully masked row contributes nothing
                }
                int qi = i * H * d + h * d, oi = i * H * dvw + h * dvw;
                double rowDot = 0;  // D = dO·O
                for (int t = 0; t < dvw; t++) {
                    rowDot += (double) dOut[oi + t] * out[oi + t];
                }
                Arrays.fill(p, 0);
                for (int j = 0; j < S; j++) {
                    if (j < band.lo(i) || j > band.hi(i) || (allowed != null && !allowed[aOff + i * S + j])) {
                        continue;
                    }
                    int kj = j * Hkv * d + kv * d;
                    double s = 0;
                    for (int t = 0; t < d; t++) {
                        s += (double) q[qi + t] * k[kj + t];
                    }
                    s *= scale;
                    if (bias != null) {
                        s += bias[bOff + i * S + j];
                    }
                    p[j] = Math.exp(s - m);
                }
                for (int j = 0; j < S; j++) {
                    if (p[j] == 0) {
                        continue;
                    }
                    int kj = j * Hkv * d + kv * d, vj = j * Hkv * dvw + kv * dvw;
                    double dp = 0;
                    for (int t = 0; t < dvw; t++) {
                        dp += (double) dOut[oi + t] * v[vj + t];
                        gv[vj + t] += p[j] * dOut[oi + t];
                    }
                    double ds = p[j] * (dp - rowDot);
                    if (gb != null) {
                        gb[(gb.length == L * S ? 0 : h * L * S) + i * S + j] += ds;
                    }
                    for (int t = 0; t < d; t++) {
                        gq[qi + t] += scale * ds * k[kj + t];
                        gk[kj + t] += scale * ds * q[qi + t];
                    }
                }
            }
        }
        copy(gq, dq);
        copy(gk, dk);
        copy(gv, dv);
        if (gb != null) {
            copy(gb, dBias);
        }
    }

    private static void copy(double[] from, float[] to) {
        for (int i = 0; i < from.length; i++) {
            to[i] = (float) from[i];
        }
    }
}

package io.sparkattention.kernel;

/**
 * {@link DirectAttention}'s arithmetic as plain loops in float32 with {@link Math#exp}, for JVMs
 * without the Vector API (and as the reference the vector path is tested beside). Queries are not
 * padded: lp = L.
 */
final class ScalarDirectAttention extends DirectAttention.Impl {

    @Override
    int padded(int L) {
        return L;
    }

    @Override
    void scores(float[] q, int qOff, int ldq, int L, float[] k, int kOff, int ldk, int S, int d, float scale,
                float[] sT, DirectAttention.Workspace ws) {
        for (int c = 0; c < S; c++) {
            int kr = kOff + c * ldk;
            for (int j = 0; j < L; j++) {
                int qr = qOff + j * ldq;
                float s = 0;
                for (int t = 0; t < d; t++) {
                    s += q[qr + t] * k[kr + t];
                }
                sT[c * L + j] = s * scale;
            }
        }
    }

    @Override
    void exp(float[] sT, int lp, int L, int S, float[] shift, float[] sum, boolean capHigh) {
        for (int c = 0; c < S; c++) {
            int row = c * lp;
            for (int j = 0; j < L; j++) {
                float m = shift[j] == Float.NEGATIVE_INFINITY ? 0f : shift[j];
                float e = (float) Math.exp(sT[row + j] - m);
                sT[row + j] = e;
                if (sum != null) {
                    sum[j] += e;
                }
            }
        }
    }

    @Override
    void columnMax(float[] sT, int lp, int S, float[] max) {
        java.util.Arrays.fill(max, 0, lp, Float.NEGATIVE_INFINITY);
        for (int c = 0; c < S; c++) {
            int row = c * lp;
            for (int j = 0; j < lp; j++) {
                max[j] = Math.max(max[j], sT[row + j]);
            }
        }
    }

    @Override
    void values(float[] sT, int lp, int L, int S, float[] v, int vOff, int ldv, int dv, float[] inv, float[] out,
                int oOff, int ldo, DirectAttention.Workspace ws) {
        for (int j = 0; j < L; j++) {
            int o = oOff + j * ldo;
            for (int t = 0; t < dv; t++) {
                out[o + t] = 0f;
            }
            for (int c = 0; c < S; c++) {
                float p = sT[c * lp + j];
                int vr = vOff + c * ldv;
                for (int t = 0; t < dv; t++) {
                    out[o + t] += p * v[vr + t];
                }
            }
            for (int t = 0; t < dv; t++) {
                out[o + t] *= inv[j];
            }
        }
    }

    @Override
    void rowsTimes(float[] sT, int lp, int L, int S, float[] b, int bOff, int ldb, int n, float alpha, float[] out,
                   int oOff, int ldo, DirectAttention.Workspace ws) {
        for (int c = 0; c < S; c++) {
            int o = oOff + c * ldo;
            for (int t = 0; t < n; t++) {
                float sum = 0f;
                for (int j = 0; j < L; j++) {
                    sum += sT[c * lp + j] * b[bOff + j * ldb + t];
                }
                out[o + t] += alpha * sum;
            }
        }
    }

    @Override
    String name() {
        return "scalar";
    }
}

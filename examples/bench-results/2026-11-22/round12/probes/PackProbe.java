import jdk.incubator.vector.*;
public class PackProbe {
    static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    static final int L = S.length(), W = 2 * L;
    // current: per strip, r outer, t inner
    static void packA(int rows, int d, float scale, float[] q, int qOff, int ldq, float[] qp) {
        for (int r0 = 0, w; r0 < rows; r0 += w) {
            w = rows - r0 >= W ? W : rows - r0 >= L ? L : rows - r0;
            int base = r0 * d;
            for (int r = 0; r < w; r++) {
                int src = qOff + (r0 + r) * ldq;
                for (int t = 0; t < d; t++) qp[base + t * w + r] = scale * q[src + t];
            }
        }
    }
    // gather: per strip, per t, gather L rows
    static void packG(int rows, int d, float scale, float[] q, int qOff, int ldq, float[] qp, int[] idx) {
        for (int r0 = 0, w; r0 < rows; r0 += w) {
            w = rows - r0 >= W ? W : rows - r0 >= L ? L : rows - r0;
            int base = r0 * d;
            if (w == W) {
                for (int t = 0; t < d; t++) {
                    FloatVector.fromArray(S, q, qOff + r0 * ldq + t, idx, 0).mul(scale).intoArray(qp, base + t * w);
                    FloatVector.fromArray(S, q, qOff + (r0 + L) * ldq + t, idx, 0).mul(scale).intoArray(qp, base + t * w + L);
                }
            } else {
                for (int r = 0; r < w; r++) {
                    int src = qOff + (r0 + r) * ldq;
                    for (int t = 0; t < d; t++) qp[base + t * w + r] = scale * q[src + t];
                }
            }
        }
    }
    // t outer blocks of 16 rows: load rows as vectors, store via temp transposed scalar
    static void packT(int rows, int d, float scale, float[] q, int qOff, int ldq, float[] qp, float[] tmp) {
        for (int r0 = 0, w; r0 < rows; r0 += w) {
            w = rows - r0 >= W ? W : rows - r0 >= L ? L : rows - r0;
            int base = r0 * d;
            for (int t = 0; t < d; t++) {
                int o = base + t * w;
                int src = qOff + r0 * ldq + t;
                for (int r = 0; r < w; r++) qp[o + r] = scale * q[src + r * ldq];
            }
        }
    }
    public static void main(String[] a) {
        int rows = 1024, d = 64, H = 16, ldq = H * d;
        float[] q = new float[rows * ldq];
        for (int i = 0; i < q.length; i++) q[i] = (float) Math.sin(i);
        float[] qp = new float[rows * d], qp2 = new float[rows * d];
        int[] idx = new int[L]; for (int i = 0; i < L; i++) idx[i] = i * ldq;
        float[] tmp = new float[256];
        for (int round = 0; round < 6; round++) {
            for (int v = 0; v < 3; v++) {
                long best = Long.MAX_VALUE;
                for (int it = 0; it < 200; it++) {
                    int h = it % H;
                    long t0 = System.nanoTime();
                    if (v == 0) packA(rows, d, 0.125f, q, h * d, ldq, qp);
                    else if (v == 1) packG(rows, d, 0.125f, q, h * d, ldq, qp2, idx);
                    else packT(rows, d, 0.125f, q, h * d, ldq, qp2, tmp);
                    long dt = System.nanoTime() - t0;
                    best = Math.min(best, dt);
                }
                if (v > 0) { packA(rows, d, 0.125f, q, 0, ldq, qp); if (v==1) packG(rows, d, 0.125f, q, 0, ldq, qp2, idx); else packT(rows, d, 0.125f, q, 0, ldq, qp2, tmp); if (!java.util.Arrays.equals(qp, qp2)) System.out.println("MISMATCH " + v); }
                System.out.print(new String[]{"scalar","gather","touter"}[v] + "=" + best / 1000 + "us ");
            }
            System.out.println();
        }
    }
}

public class EpiProbe {
    // acc strip layout: strip r0 (w=32): acc[r0*dv + t*w + r]; out row-major ldo
    static void epi(int bq, int dv, int W, float[] acc, float[] l, float[] out, int outOff, int ldo) {
        for (int r0 = 0, w; r0 < bq; r0 += w) {
            w = Math.min(W, bq - r0);
            int a = r0 * dv;
            for (int r = 0; r < w; r++) {
                int row = r0 + r, o = outOff + row * ldo;
                float inv = 1f / l[row];
                int ar = a + r;
                for (int t = 0; t < dv; t++) out[o + t] = acc[ar + t * w] * inv;
            }
        }
    }
    public static void main(String[] x) {
        int bq = 1024, dv = 64, ldo = 1024;
        float[] acc = new float[bq * dv], l = new float[bq], out = new float[bq * ldo];
        for (int i = 0; i < acc.length; i++) acc[i] = i; java.util.Arrays.fill(l, 2f);
        for (int round = 0; round < 6; round++) {
            long best = Long.MAX_VALUE;
            for (int it = 0; it < 300; it++) { int h = it % 16; long t0 = System.nanoTime(); epi(bq, dv, 32, acc, l, out, h * dv, ldo); best = Math.min(best, System.nanoTime() - t0); }
            System.out.print("epi=" + best / 1000 + "us ");
        }
        System.out.println();
    }
}

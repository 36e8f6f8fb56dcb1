package io.sparkattention.kernel;
// Round 11 probe: VectorExp (Horner) against a copy with the polynomial by Estrin's scheme (tried/exp-estrin.diff,
// class VectorExpE), one 32 x 256 strip in L1, one core; then the copy's worst relative error on [-87, 0].   java ... ExpAB REPS
import java.util.*;
public class ExpAB {
    public static void main(String[] a) {
        int w = 32, nk = 256, reps = Integer.parseInt(a[0]);
        Random r = new Random(1);
        float[] s0 = new float[w * nk], s = new float[w * nk], m = new float[w], l = new float[w];
        for (int i = 0; i < s0.length; i++) s0[i] = (float) (r.nextGaussian() * 3);
        Arrays.fill(m, 9f);
        int iters = 20000;
        double worst = 0;
        for (int rep = 0; rep < reps; rep++) {
            long t0 = System.nanoTime();
            for (int it = 0; it < iters; it++) { System.arraycopy(s0, 0, s, 0, s.length); VectorExp.expShifted(s, 0, w, nk, m, 0, w, l, false); }
            long t1 = System.nanoTime();
            for (int it = 0; it < iters; it++) { System.arraycopy(s0, 0, s, 0, s.length); VectorExpE.expShifted(s, 0, w, nk, m, 0, w, l, false); }
            long t2 = System.nanoTime();
            System.out.printf("horner %.3f ns/elem   estrin %.3f ns/elem%n", (t1 - t0) / (double) iters / (w * nk), (t2 - t1) / (double) iters / (w * nk));
        }
        // accuracy of Estrin over a dense range
        float[] x = new float[1 << 20], y = new float[x.length], z = new float[1]; float[] sh = new float[16];
        for (int i = 0; i < x.length; i++) x[i] = -87f + 87f * i / x.length;
        System.arraycopy(x, 0, y, 0, x.length);
        VectorExpE.expShifted(y, 0, 16, x.length / 16, sh, 0, 16, null, false);
        for (int i = 0; i < x.length; i++) { double ref = Math.exp(x[i]); worst = Math.max(worst, Math.abs(y[i] - ref) / ref); }
        System.out.println("estrin worst relative error " + worst);
    }
}

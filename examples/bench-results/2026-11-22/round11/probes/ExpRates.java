package io.sparkattention.kernel;
// Round 11 probe: one core's time per element of the softmax passes on one strip (W queries x 256
// keys, the Vector tiles' layout), in L1-sized and L2-sized strips.   java ... ExpRates REPS
import java.util.*;
public class ExpRates {
    public static void main(String[] a) {
        int reps = Integer.parseInt(a[0]);
        int w = 2 * jdk.incubator.vector.FloatVector.SPECIES_PREFERRED.length();
        VectorSoftmax sm = new VectorSoftmax();
        for (int nk : new int[] {64, 128, 256, 512}) {
        Random r = new Random(1);
        float[] s0 = new float[w * nk], s = new float[w * nk], m = new float[w], l = new float[w], al = new float[w], acc = new float[w * 64];
        for (int i = 0; i < s0.length; i++) s0[i] = (float) r.nextGaussian() * 3;
        int iters = 4_000_000 / nk;
        for (int rep = 0; rep < reps; rep++) {
            long tc = 0, tu = 0;
            for (int it = 0; it < iters; it++) {
                long t0 = System.nanoTime();
                System.arraycopy(s0, 0, s, 0, s.length);
                Arrays.fill(m, Float.NEGATIVE_INFINITY);
                long t1 = System.nanoTime();
                sm.update(w, w, nk, s, m, l, al, 0, acc, 0, 1, w, 64);
                long t2 = System.nanoTime();
                tc += t1 - t0; tu += t2 - t1;
            }
            if (rep >= reps - 2) System.out.printf("w=%d nk=%d  update %.3f ns/element (copy %.3f)%n", w, nk, tu / (double) iters / (w * nk), tc / (double) iters / (w * nk));
        }
        }
    }
}

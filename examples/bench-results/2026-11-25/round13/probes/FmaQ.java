package io.sparkattention.examples.bench;
import jdk.incubator.vector.*;
public class FmaQ {
    static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED;
    static float chains(int steps) {
        final FloatVector x = FloatVector.broadcast(SPECIES, 0.999f), y = FloatVector.broadcast(SPECIES, 0.001f);
        FloatVector a0 = FloatVector.broadcast(SPECIES, 0.25f), a1 = FloatVector.broadcast(SPECIES, 0.3125f);
        FloatVector a2 = FloatVector.broadcast(SPECIES, 0.375f), a3 = FloatVector.broadcast(SPECIES, 0.4375f);
        FloatVector a4 = FloatVector.broadcast(SPECIES, 0.5f), a5 = FloatVector.broadcast(SPECIES, 0.5625f);
        FloatVector a6 = FloatVector.broadcast(SPECIES, 0.625f), a7 = FloatVector.broadcast(SPECIES, 0.6875f);
        FloatVector a8 = FloatVector.broadcast(SPECIES, 0.75f), a9 = FloatVector.broadcast(SPECIES, 0.8125f);
        FloatVector a10 = FloatVector.broadcast(SPECIES, 0.875f), a11 = FloatVector.broadcast(SPECIES, 0.9375f);
        for (int s = 0; s < steps; s++) {
            a0 = x.fma(y, a0); a1 = x.fma(y, a1); a2 = x.fma(y, a2); a3 = x.fma(y, a3);
            a4 = x.fma(y, a4); a5 = x.fma(y, a5); a6 = x.fma(y, a6); a7 = x.fma(y, a7);
            a8 = x.fma(y, a8); a9 = x.fma(y, a9); a10 = x.fma(y, a10); a11 = x.fma(y, a11);
        }
        return a0.add(a1).add(a2).add(a3).add(a4).add(a5).add(a6).add(a7).add(a8).add(a9).add(a10).add(a11)
            .reduceLanes(VectorOperators.ADD);
    }
    public static void main(String[] a) {
        long steps = 2_000_000;
        double fps = 2.0 * 12 * SPECIES.length();
        for (int rep = 0; rep < 12; rep++) {
            long t0 = System.nanoTime();
            float s = 0;
            for (long done = 0; done < steps; done += 512) s += chains(512);
            long t1 = System.nanoTime();
            System.out.printf("%.1f ", steps * fps / (t1 - t0));
            t0 = System.nanoTime();
            s += FmaPeak.run(steps);
            t1 = System.nanoTime();
            System.out.printf("(old %.1f) %s", steps * FmaPeak.flopsPerStep() / (t1 - t0), s > 0 ? " " : "x ");
        }
        System.out.println();
    }
}

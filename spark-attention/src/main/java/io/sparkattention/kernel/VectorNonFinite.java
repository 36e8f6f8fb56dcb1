package io.sparkattention.kernel;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The Vector API scan of {@link NonFinite}: no branch per vector. A float is NaN or ±∞ exactly
 * when its exponent bits are all ones, and adding one exponent step to those bits carries into
 * the sign bit only then: {@code (bits & 0x7f800000) + 0x00800000} is negative for NaN and ±∞
 * and positive for everything else. The scan ORs that into two accumulators (two, so that the
 * loop is not one chain of dependent ORs) and tests the sign once at the end; only when it is
 * set does the scalar loop find the first offender.
 *
 * <p>The final test is a lane comparison, not {@code reduceLanes(OR)}: inside the Spark stage
 * this method is inlined into the row decoding, and there C2 did not intrinsify the reduction
 * (its generic fallback allocated an array per call, 95% of the scan's samples).
 */
final class VectorNonFinite implements NonFinite.Scan {

    private static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Integer> BITS = SPECIES.withLanes(int.class);
    private static final int L = SPECIES.length();
    private static final int EXPONENT = 0x7f800000;
    private static final int ONE_STEP = 0x00800000;

    @Override
    public int first(float[] a, int from, int to) {
        IntVector acc0 = IntVector.zero(BITS);
        IntVector acc1 = acc0;
        int i = from;
        for (; to - i >= 2 * L; i += 2 * L) {
            IntVector b0 = FloatVector.fromArray(SPECIES, a, i).reinterpretAsInts();
            IntVector b1 = FloatVector.fromArray(SPECIES, a, i + L).reinterpretAsInts();
            acc0 = acc0.or(b0.and(EXPONENT).add(ONE_STEP));
            acc1 = acc1.or(b1.and(EXPONENT).add(ONE_STEP));
        }
        boolean found = acc0.or(acc1).compare(VectorOperators.LT, 0).anyTrue();
        for (; i < to && !found; i++) {
            found = (Float.floatToRawIntBits(a[i]) & EXPONENT) + ONE_STEP < 0;
        }
        return found ? NonFinite.firstScalar(a, from, to) : -1;
    }
}

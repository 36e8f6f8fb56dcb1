package io.sparkattention.kernel;

import java.util.List;
import java.util.Objects;

/**
 * Finds NaN and ±∞ in float arrays: the check every input matrix gets under
 * {@code handleInvalid=error}, so it runs over every value a stage reads.
 *
 * <p>With the Vector API visible it is {@link VectorNonFinite}'s branch-free scan (C2 vectorises
 * none of the scalar forms, and the scan runs over every value a stage reads); otherwise a
 * {@link Float#isFinite} loop. Both give the same index; the choice is made once per JVM through
 * {@link ImplementationChoice} ({@value #PROPERTY}: {@code auto}, {@code vector} or
 * {@code scalar}) and logged once.
 */
public final class NonFinite {

    /** System property that forces the scan: {@code auto}, {@code vector} or {@code scalar}. */
    static final String PROPERTY = "sparkattention.nonfinite";

    private static final Scan SCALAR = NonFinite::firstScalar;

    private static final ImplementationChoice<Scan> CHOICE = new ImplementationChoice<>("NaN/±∞ input check",
        PROPERTY, List.of("auto", "vector", "scalar"), NonFinite::make);

    private static final Scan SCAN = CHOICE.choose(scan -> scan == SCALAR ? "scalar loop" : "Vector API scan");

    private NonFinite() {
    }

    /**
     * The index of the first NaN or ±∞ in {@code a[from, to)}, or −1 when every value is finite.
     *
     * @throws IndexOutOfBoundsException when {@code [from, to)} is not inside {@code a}
     */
    public static int first(float[] a, int from, int to) {
        Objects.checkFromToIndex(from, to, a.length);
        return SCAN.first(a, from, to);
    }

    /** The plain loop: the fallback, and where the vector scan locates what it found. */
    static int firstScalar(float[] a, int from, int to) {
        for (int i = from; i < to; i++) {
            if (!Float.isFinite(a[i])) {
                return i;
            }
        }
        return -1;
    }

    /** A scan over a range already checked to be inside the array. */
    interface Scan {
        int first(float[] a, int from, int to);
    }

    /** A new scan by name ({@code auto}, {@code vector}, {@code scalar}). */
    static Scan create(String requested) {
        return CHOICE.create(requested);
    }

    private static Scan make(String name) {
        switch (name) {
            case "vector":
                return ImplementationChoice.requireVector(vectorScan(), "NaN/±∞ input check");
            case "scalar":
                return SCALAR;
            default:
                Scan vector = vectorScan();
                return vector != null ? vector : SCALAR;
        }
    }

    /** The Vector API scan, or null when {@code jdk.incubator.vector} is not visible. */
    private static Scan vectorScan() {
        // By name (and never named below), so that this class links without jdk.incubator.vector.
        return ImplementationChoice.vectorInstance("io.sparkattention.kernel.VectorNonFinite", Scan.class);
    }
}

package io.sparkattention.kernel;

import org.slf4j.LoggerFactory;

import java.util.Objects;

/**
 * Finds NaN and ±∞ in float arrays: the check every input matrix gets under
 * {@code handleInvalid=error}, so it runs over every value a stage reads.
 *
 * <p>With the Vector API visible it is {@link VectorNonFinite}'s branch-free scan (C2 vectorises
 * none of the scalar forms, and the scan runs over every value a stage reads); otherwise a
 * {@link Float#isFinite} loop. The choice is made once and logged at debug level.
 */
public final class NonFinite {

    private static final Scan SCAN = choose();

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

    private static Scan choose() {
        Scan scan;
        String which;
        try {
            // By name (and never named below), so that this class links without jdk.incubator.vector.
            scan = (Scan) Class.forName("io.sparkattention.kernel.VectorNonFinite").getDeclaredConstructor()
                .newInstance();
            which = "Vector API scan";
        } catch (ReflectiveOperationException | LinkageError noVectorApi) {
            scan = NonFinite::firstScalar;
            which = "scalar loop (" + noVectorApi + ")";
        }
        LoggerFactory.getLogger(NonFinite.class).debug("NaN/±∞ input check: {}", which);
        return scan;
    }
}

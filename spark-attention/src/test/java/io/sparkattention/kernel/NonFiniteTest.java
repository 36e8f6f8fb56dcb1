package io.sparkattention.kernel;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.SplittableRandom;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Finding NaN and ±∞: the vector scan and the scalar loop against {@link Float#isFinite}, value by value. */
class NonFiniteTest {

    /** Finite values at the edges of the format: none may be taken for NaN or ±∞. */
    private static final float[] FINITE_EDGES = {0f, -0f, Float.MIN_VALUE, -Float.MIN_VALUE, Float.MIN_NORMAL,
        Float.MAX_VALUE, -Float.MAX_VALUE, Math.nextDown(Float.MAX_VALUE), 1f, -1f, 3.4e38f, -1e-45f};
    private static final float[] NON_FINITE = {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY,
        Float.intBitsToFloat(0x7fc00001), Float.intBitsToFloat(0xffffffff), Float.intBitsToFloat(0x7f800001)};

    static Stream<NonFinite.Scan> scans() {
        return Stream.of(new VectorNonFinite(), NonFinite::firstScalar, NonFinite::first, NonFinite.create("auto"),
            NonFinite.create("vector"), NonFinite.create("scalar"));
    }

    private static int reference(float[] a, int from, int to) {
        for (int i = from; i < to; i++) {
            if (!Float.isFinite(a[i])) {
                return i;
            }
        }
        return -1;
    }

    private static float[] finite(SplittableRandom random, int n) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = i % 3 == 0 ? FINITE_EDGES[random.nextInt(FINITE_EDGES.length)] : (float) random.nextGaussian() * 1e6f;
        }
        return a;
    }

    @ParameterizedTest
    @MethodSource("scans")
    @DisplayName("every finite value passes, edges of the format included, at every length and offset")
    void finiteArraysPass(NonFinite.Scan scan) {
        SplittableRandom random = new SplittableRandom(11);
        for (int n = 0; n <= 70; n++) {
            float[] a = finite(random, n + 5);
            for (int from = 0; from <= 5; from++) {
                assertEquals(-1, scan.first(a, from, from + n), "n " + n + ", from " + from);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("scans")
    @DisplayName("the first NaN or ±∞ is found at every position, lengths not a multiple of the vector included")
    void findsTheFirstAtEveryPosition(NonFinite.Scan scan) {
        SplittableRandom random = new SplittableRandom(12);
        for (int n : new int[] {1, 7, 8, 15, 16, 17, 33, 64, 100, 1024}) {
            for (int pos = 0; pos < n; pos++) {
                float[] a = finite(random, n + 3);
                a[1 + pos] = NON_FINITE[random.nextInt(NON_FINITE.length)];
                if (random.nextBoolean() && 1 + pos + 1 < 1 + n) {
                    a[1 + pos + 1 + random.nextInt(n - pos - 1)] = Float.NaN;  // a second, later one
                }
                assertEquals(1 + pos, scan.first(a, 1, 1 + n), "n " + n + ", at " + pos);
                assertEquals(reference(a, 1 + pos + 1, 1 + n), scan.first(a, 1 + pos + 1, 1 + n), "after it");
            }
        }
    }

    @ParameterizedTest
    @MethodSource("scans")
    @DisplayName("values outside the range are not looked at")
    void onlyTheRange(NonFinite.Scan scan) {
        float[] a = new float[40];
        a[3] = Float.NaN;
        a[36] = Float.POSITIVE_INFINITY;
        assertEquals(-1, scan.first(a, 4, 36));
        assertEquals(36, scan.first(a, 4, 37));
        assertEquals(3, scan.first(a, 3, 36));
    }

    @Test
    @DisplayName("a range outside the array is an IndexOutOfBoundsException")
    void checksTheRange() {
        float[] a = new float[8];
        assertThrows(IndexOutOfBoundsException.class, () -> NonFinite.first(a, -1, 4));
        assertThrows(IndexOutOfBoundsException.class, () -> NonFinite.first(a, 2, 9));
        assertThrows(IndexOutOfBoundsException.class, () -> NonFinite.first(a, 5, 4));
    }

    @Test
    @DisplayName("the scan is chosen by sparkattention.nonfinite: an unknown name names the property and the choices")
    void choiceByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> NonFinite.create("simd"));
        assertEquals("NaN/±∞ input check \"simd\" (system property sparkattention.nonfinite): expected auto, vector "
            + "or scalar", e.getMessage());
    }
}

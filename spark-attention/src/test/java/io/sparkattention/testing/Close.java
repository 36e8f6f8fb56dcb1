package io.sparkattention.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The project's agreement criterion (DESIGN.md, "precision"): ‖out − ref‖/‖ref‖ ≤ 1e-5 and
 * max |out − ref| ≤ 1e-4·max(1, max |ref|). Infinities must match exactly, NaN must not appear.
 */
public final class Close {

    public static final double RELATIVE = 1e-5;
    public static final double ABSOLUTE = 1e-4;

    private Close() {
    }

    public static void assertClose(String what, double[] ref, float[] got) {
        assertEquals(ref.length, got.length, what + ": length");
        double diff2 = 0, ref2 = 0, maxDiff = 0, maxRef = 0;
        int worst = -1;
        for (int i = 0; i < ref.length; i++) {
            double r = ref[i], g = got[i];
            if (Double.isNaN(g)) {
                fail(what + ": NaN at " + i + " (reference " + r + ")");
            }
            if (Double.isInfinite(r) || Double.isInfinite(g)) {
                if (r != g) {
                    fail(what + ": at " + i + " expected " + r + " got " + g);
                }
                continue;
            }
            double e = Math.abs(r - g);
            diff2 += e * e;
            ref2 += r * r;
            if (e > maxDiff) {
                maxDiff = e;
                worst = i;
            }
            maxRef = Math.max(maxRef, Math.abs(r));
        }
        double bound = ABSOLUTE * Math.max(1, maxRef);
        if (maxDiff > bound) {
            fail(String.format("%s: max |err| %.3g at %d (ref %.6g, got %.6g) > %.3g", what, maxDiff, worst,
                ref[worst], (double) got[worst], bound));
        }
        if (ref2 > 0 && Math.sqrt(diff2 / ref2) > RELATIVE) {
            fail(String.format("%s: relative error %.3g > %.1g", what, Math.sqrt(diff2 / ref2), RELATIVE));
        }
    }

    public static void assertClose(String what, double[] ref, double[] got) {
        float[] f = new float[got.length];
        for (int i = 0; i < got.length; i++) {
            f[i] = (float) got[i];
        }
        assertClose(what, ref, f);
    }
}

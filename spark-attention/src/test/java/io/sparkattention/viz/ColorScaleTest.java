package io.sparkattention.viz;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ColorScaleTest {

    @Test
    void automaticRangeStartsAtZeroAndIgnoresNonFinite() {
        ColorScale scale = ColorScale.covering(new float[] {0.2f, Float.NaN, 0.7f, Float.POSITIVE_INFINITY, 0.4f}, 0, 5);
        assertEquals(0, scale.lo);
        assertEquals(0.7f, scale.hi, 1e-7);
        assertEquals(1.0, scale.position(0.7f), 1e-7);
        assertTrue(Double.isNaN(scale.position(Float.NaN)));
    }

    @Test
    void degenerateRangesBecomeUnitWide() {
        ColorScale zeros = ColorScale.covering(new float[4], 0, 4);
        assertEquals(0, zeros.lo);
        assertEquals(1, zeros.hi);
        ColorScale masked = ColorScale.covering(new float[] {Float.NaN, Float.NaN}, 0, 2);
        assertEquals(1, masked.hi - masked.lo);
        ColorScale negative = ColorScale.covering(new float[] {-2f, -2f}, 0, 2);
        assertEquals(-2, negative.lo);
        assertEquals(-1, negative.hi);
    }

    @Test
    void ticksAreNiceAndLabelledWithTheirPrecision() {
        ColorScale scale = new ColorScale(0, 0.87);
        assertEquals(List.of("0.0", "0.2", "0.4", "0.6", "0.8"), labels(scale));
        assertEquals(List.of("0.00", "0.05", "0.10"), labels(new ColorScale(0, 0.12)));
        assertEquals(List.of("0", "2", "4", "6", "8", "10"), labels(new ColorScale(0, 10)));
        assertEquals(List.of("-1.0", "-0.5", "0.0", "0.5", "1.0"), labels(new ColorScale(-1, 1)));
        for (double hi : new double[] {1e-4, 0.013, 0.3, 1, 3.7, 250}) {
            List<Double> ticks = new ColorScale(0, hi).ticks();
            assertTrue(ticks.size() >= 2 && ticks.size() <= ColorScale.MAX_TICKS, "ticks for hi=" + hi + ": " + ticks);
        }
    }

    @Test
    void rejectsEmptyRange() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new ColorScale(1, 1));
        assertTrue(e.getMessage().contains("lo < hi"), e.getMessage());
    }

    private static List<String> labels(ColorScale scale) {
        return scale.ticks().stream().map(scale::format).collect(java.util.stream.Collectors.toList());
    }
}

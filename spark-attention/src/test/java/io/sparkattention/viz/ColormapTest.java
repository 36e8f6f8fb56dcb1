package io.sparkattention.viz;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ColormapTest {

    @Test
    void endsAndMiddleAreViridis() {
        Colormap map = Colormap.VIRIDIS;
        assertEquals(0x440154, map.rgb(0));
        assertEquals(0xfde725, map.rgb(1));
        assertEquals(0x21918c, map.rgb(0.5));
        assertEquals(map.top(), map.rgb(1));
        assertEquals(map.bottom(), map.rgb(0));
    }

    @Test
    void clampsOutOfRangeAndMarksNaN() {
        Colormap map = Colormap.VIRIDIS;
        assertEquals(map.top(), map.rgb(7));
        assertEquals(map.bottom(), map.rgb(-3));
        assertEquals(Colormap.MASKED_RGB, map.rgb(Double.NaN));
    }

    /** Perceptual ordering: higher values are lighter all the way, so the map also reads in greyscale. */
    @Test
    void lightnessGrowsMonotonically() {
        double previous = -1;
        for (int i = 0; i <= 200; i++) {
            double y = luminance(Colormap.VIRIDIS.rgb(i / 200.0));
            assertTrue(y > previous, "luminance at " + i / 200.0);
            previous = y;
        }
    }

    /** The masked grey is a neutral colour far from every colour of the map. */
    @Test
    void maskedGreyIsDistinctFromTheMap() {
        for (int i = 0; i <= 100; i++) {
            int c = Colormap.VIRIDIS.rgb(i / 100.0);
            int m = Colormap.MASKED_RGB;
            int distance = Math.abs((c >> 16 & 0xff) - (m >> 16 & 0xff)) + Math.abs((c >> 8 & 0xff) - (m >> 8 & 0xff))
                + Math.abs((c & 0xff) - (m & 0xff));
            assertTrue(distance > 90, "masked grey too close to the map at " + i / 100.0);
        }
    }

    private static double luminance(int rgb) {
        return 0.2126 * linear(rgb >> 16 & 0xff) + 0.7152 * linear(rgb >> 8 & 0xff) + 0.0722 * linear(rgb & 0xff);
    }

    private static double linear(int channel) {
        double c = channel / 255.0;
        return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
    }
}

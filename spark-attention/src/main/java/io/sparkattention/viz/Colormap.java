package io.sparkattention.viz;

/**
 * A perceptual colour map: values in [0, 1] to sRGB colours, linearly interpolated between a
 * small table of stops.
 *
 * <p>{@link #VIRIDIS} is matplotlib's default map (van der Walt and Smith), sampled at eleven
 * evenly spaced stops. Its lightness grows monotonically from dark purple to yellow, so it reads
 * correctly in greyscale and for the common colour-vision deficiencies; it contains no neutral
 * grey, which leaves grey free for masked cells ({@link #MASKED_RGB}).
 */
public final class Colormap {

    /** Viridis at t = 0, 0.1, …, 1 (matplotlib's {@code _viridis_data} at those points). */
    public static final Colormap VIRIDIS = new Colormap(
        0x440154, 0x482475, 0x414487, 0x355f8d, 0x2a788e, 0x21918c,
        0x22a884, 0x44bf70, 0x7ad151, 0xbddf26, 0xfde725);

    /**
     * Colour of masked or NaN cells: a light neutral grey, which no viridis colour comes close to
     * and which stays distinct from the white background.
     */
    public static final int MASKED_RGB = 0xc8c8c8;

    private final int[] stops;

    private Colormap(int... stops) {
        this.stops = stops;
    }

    /**
     * The colour of {@code t}, as {@code 0xRRGGBB}; {@code t} is clamped to [0, 1] and NaN gives
     * {@link #MASKED_RGB}.
     *
     * @param t position on the map, 0 = lowest value, 1 = highest
     * @return the interpolated sRGB colour
     */
    public int rgb(double t) {
        if (Double.isNaN(t)) {
            return MASKED_RGB;
        }
        double x = Math.min(1.0, Math.max(0.0, t)) * (stops.length - 1);
        int i = Math.min((int) x, stops.length - 2);
        double f = x - i;
        int a = stops[i], b = stops[i + 1];
        return mix(a >> 16 & 0xff, b >> 16 & 0xff, f) << 16 | mix(a >> 8 & 0xff, b >> 8 & 0xff, f) << 8
            | mix(a & 0xff, b & 0xff, f);
    }

    /**
     * The colour of the highest value ({@code rgb(1)}).
     *
     * @return the last stop, as {@code 0xRRGGBB}
     */
    public int top() {
        return stops[stops.length - 1];
    }

    /**
     * The colour of the lowest value ({@code rgb(0)}).
     *
     * @return the first stop, as {@code 0xRRGGBB}
     */
    public int bottom() {
        return stops[0];
    }

    /** Number of table stops (an SVG gradient reproduces the map exactly with one stop each). */
    int stopCount() {
        return stops.length;
    }

    /** Stop {@code i}'s colour. */
    int stop(int i) {
        return stops[i];
    }

    private static int mix(int a, int b, double f) {
        return (int) Math.round(a + (b - a) * f);
    }
}

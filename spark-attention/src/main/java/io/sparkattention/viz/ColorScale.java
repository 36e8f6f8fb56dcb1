package io.sparkattention.viz;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A value range mapped onto a {@link Colormap}, with the tick values of its colour bar.
 *
 * <p>The automatic range of attention weights starts at 0 (not at the smallest weight), so a
 * colour always means the same absolute weight and a uniform row is not stretched to full
 * contrast; it ends at the largest finite value.
 */
final class ColorScale {

    /** Most ticks a colour bar shows; the nice step is chosen so at most this many fit. */
    static final int MAX_TICKS = 6;

    final double lo;
    final double hi;

    ColorScale(double lo, double hi) {
        if (!(hi > lo)) {
            throw new IllegalArgumentException("colour range must have lo < hi, got [" + lo + ", " + hi + "]");
        }
        this.lo = lo;
        this.hi = hi;
    }

    /**
     * The automatic range of {@code values[from, to)}: [min(0, smallest), largest] over the finite
     * values; [0, 1] when none is finite or all are equal to 0.
     */
    static ColorScale covering(float[] values, int from, int to) {
        double min = 0, max = Double.NEGATIVE_INFINITY;
        for (int i = from; i < to; i++) {
            float x = values[i];
            if (Float.isFinite(x)) {
                min = Math.min(min, x);
                max = Math.max(max, x);
            }
        }
        if (max == Double.NEGATIVE_INFINITY || max <= min) {
            // Nothing finite, or a constant panel: a unit-wide range keeps the bar readable.
            return new ColorScale(min, min + 1);
        }
        return new ColorScale(min, max);
    }

    /** Position of {@code value} on the colour map: 0 at lo, 1 at hi, NaN for non-finite values. */
    double position(float value) {
        return Float.isFinite(value) ? (value - lo) / (hi - lo) : Double.NaN;
    }

    /** The nice step (1, 2 or 5 × 10^k) that puts at most {@link #MAX_TICKS} ticks in the range. */
    double tickStep() {
        double raw = (hi - lo) / (MAX_TICKS - 1);
        double magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
        for (double m : new double[] {1, 2, 5, 10}) {
            if (m * magnitude >= raw) {
                return m * magnitude;
            }
        }
        return 10 * magnitude;
    }

    /** The tick values: multiples of {@link #tickStep()} inside [lo, hi]. */
    List<Double> ticks() {
        double step = tickStep();
        List<Double> ticks = new ArrayList<>();
        long first = (long) Math.ceil(lo / step - 1e-9);
        for (long i = first; i * step <= hi + step * 1e-9; i++) {
            ticks.add(i * step);
        }
        return ticks;
    }

    /** A tick label with as many decimals as the step needs ("0.25", "0.1", "2"). */
    String format(double tick) {
        double step = tickStep();
        int decimals = Math.max(0, (int) Math.ceil(-Math.log10(step) - 1e-9));
        if (Math.abs(step * Math.pow(10, decimals) - Math.rint(step * Math.pow(10, decimals))) > 1e-6) {
            decimals++;
        }
        String s = String.format(Locale.ROOT, "%." + decimals + "f", tick);
        return s.startsWith("-") && Double.parseDouble(s) == 0 ? s.substring(1) : s;
    }
}

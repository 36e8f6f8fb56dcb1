package io.sparkattention.examples.scaling;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A logarithmic axis: values in [lo, hi] mapped onto pixels [p0, p1], with its tick values.
 */
final class LogAxis {

    /** Axes spanning fewer decades than this also label 2× and 5× ticks. */
    static final double FEW_DECADES = 2.5;

    final double lo;
    final double hi;
    final double p0;
    final double p1;

    LogAxis(double lo, double hi, double p0, double p1) {
        if (!(lo > 0) || !(hi > lo)) {
            throw new IllegalArgumentException("log axis needs 0 < lo < hi, got [" + lo + ", " + hi + "]");
        }
        this.lo = lo;
        this.hi = hi;
        this.p0 = p0;
        this.p1 = p1;
    }

    /** The axis around the positive {@code values}, widened by {@code pad} (a factor) on both sides. */
    static LogAxis around(List<Double> values, double pad, double p0, double p1) {
        double min = Double.POSITIVE_INFINITY, max = 0;
        for (double v : values) {
            if (v > 0 && Double.isFinite(v)) {
                min = Math.min(min, v);
                max = Math.max(max, v);
            }
        }
        if (max == 0) {
            min = 1;
            max = 10;
        }
        return new LogAxis(min / pad, max * pad, p0, p1);
    }

    double pixel(double value) {
        return p0 + (Math.log(value) - Math.log(lo)) / (Math.log(hi) - Math.log(lo)) * (p1 - p0);
    }

    boolean contains(double value) {
        return value >= lo * (1 - 1e-9) && value <= hi * (1 + 1e-9);
    }

    /** Powers of two inside the axis (sequence lengths), every {@code stride}-th one from the first. */
    List<Double> powersOfTwo(int stride) {
        List<Double> ticks = new ArrayList<>();
        int first = (int) Math.ceil(Math.log(lo) / Math.log(2) - 1e-9);
        for (int e = first; Math.pow(2, e) <= hi * (1 + 1e-9); e += stride) {
            ticks.add(Math.pow(2, e));
        }
        return ticks;
    }

    /**
     * Labelled decade ticks (1, 10, 100...); when the axis spans fewer than {@link #FEW_DECADES}
     * decades, also 2× and 5× each decade, so there are always a few labels.
     */
    List<Double> majorTicks() {
        boolean few = Math.log10(hi / lo) < FEW_DECADES;
        List<Double> ticks = new ArrayList<>();
        for (int e = (int) Math.floor(Math.log10(lo)); Math.pow(10, e) <= hi; e++) {
            for (int m : few ? new int[] {1, 2, 5} : new int[] {1}) {
                double v = m * Math.pow(10, e);
                if (contains(v)) {
                    ticks.add(v);
                }
            }
        }
        return ticks;
    }

    /** Unlabelled minor ticks: 2…9 × each decade. */
    List<Double> minorTicks() {
        List<Double> ticks = new ArrayList<>();
        for (int e = (int) Math.floor(Math.log10(lo)); Math.pow(10, e) <= hi; e++) {
            for (int m = 2; m <= 9; m++) {
                double v = m * Math.pow(10, e);
                if (contains(v)) {
                    ticks.add(v);
                }
            }
        }
        return ticks;
    }

    /** "0.01", "0.5", "1", "20", "1000": no exponent, no trailing zeros. */
    static String format(double value) {
        if (value >= 1) {
            return String.format(Locale.ROOT, "%.0f", value);
        }
        String s = String.format(Locale.ROOT, "%.6f", value).replaceAll("0+$", "");
        return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    }
}

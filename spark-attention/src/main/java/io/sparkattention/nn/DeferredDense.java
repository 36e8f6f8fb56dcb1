package io.sparkattention.nn;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The dense part of whole {@link GradientSums} kept as the parts added into it (slices' float32
 * values, whole sums' float64 ones), summed when read. A step's total is read range by range by
 * the update ({@code MeanGradient}: the clipping norm's pass, then AdamW's): adding every part
 * into a zeroed float64 array first is two passes over it (for a fine-tuned MiniLM 11 million
 * values, 88 MB: zero, then add; 10–40 ms of a step on the driver while every task slot waits)
 * that the reads do in cache instead, each summing the parts again (1–2 ms a pass there).
 *
 * <p>Value d reads {@code 0.0 + p₀[d] + p₁[d] + …} in float64, over the parts that cover d in the
 * order they were added: the bits of adding them into a zeroed array. The parts are held by
 * reference: whoever adds one hands it over and changes it no more.
 */
final class DeferredDense implements Serializable {

    private static final long serialVersionUID = 1L;

    /**
     * A part: values [from, from + length) of the dense part, float32 or float64 (a class, not a
     * record: Kryo's field serializer cannot set a record's fields).
     */
    private static final class Part implements Serializable {
        private static final long serialVersionUID = 1L;
        final int from;
        final float[] wire;
        final double[] whole;

        Part(int from, float[] wire, double[] whole) {
            this.from = from;
            this.wire = wire;
            this.whole = whole;
        }

        int length() {
            return wire != null ? wire.length : whole.length;
        }
    }

    private final int length;
    private final List<Part> parts = new ArrayList<>();

    /** No parts yet, over a dense part of {@code length} values (all 0). */
    DeferredDense(int length) {
        this.length = length;
    }

    /** Adds a slice's values, dense values [from, from + wire.length). */
    void add(int from, float[] wire) {
        checkRange(from, wire.length);
        parts.add(new Part(from, wire, null));
    }

    /** Adds whole sums' dense values, [0, length). */
    void add(double[] whole) {
        if (whole.length != length) {
            throw new IllegalArgumentException("whole dense values: " + whole.length + ", expected " + length);
        }
        parts.add(new Part(0, null, whole));
    }

    private void checkRange(int from, int n) {
        if (from < 0 || n < 0 || from + n > length) {
            throw new IllegalArgumentException("dense values [" + from + ", " + (from + n) + ") outside [0, "
                + length + ")");
        }
    }

    /** Values [from, from + n) into {@code into[at, at + n)}, every one of them overwritten. */
    void read(int from, int n, double[] into, int at) {
        Arrays.fill(into, at, at + n, 0.0);
        int to = from + n;
        for (Part p : parts) {
            int a = Math.max(from, p.from), b = Math.min(to, p.from + p.length());
            if (a >= b) {
                continue;
            }
            int o = at - from;
            int q = -p.from;
            if (p.wire != null) {
                float[] w = p.wire;
                for (int d = a; d < b; d++) {
                    into[o + d] += w[q + d];
                }
            } else {
                double[] w = p.whole;
                for (int d = a; d < b; d++) {
                    into[o + d] += w[q + d];
                }
            }
        }
    }

    /** The sums as one float64 array (a new one). */
    double[] toArray() {
        double[] dense = new double[length];
        read(0, length, dense, 0);
        return dense;
    }
}

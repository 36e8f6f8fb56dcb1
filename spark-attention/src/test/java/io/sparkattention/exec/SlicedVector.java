package io.sparkattention.exec;

import java.io.Serializable;
import java.util.Arrays;

/**
 * A test accumulator: a float64 vector cut into slices of elements [⌊s·n/S⌋, ⌊(s+1)·n/S⌋), each
 * slice an exact copy that knows where it starts, so a sliced merge must give the unsliced bits.
 * A class, not a record: the cluster's Kryo (field serializer) does not serialize records.
 */
final class SlicedVector implements Sliceable<SlicedVector>, Serializable {

    private static final long serialVersionUID = 1L;

    private final double[] values;
    private final int from;

    SlicedVector(double[] values, int from) {
        this.values = values;
        this.from = from;
    }

    /** The vector's values (a slice's, from its first element). */
    double[] values() {
        return values;
    }

    /** A zero vector of {@code width} elements. */
    static SlicedVector zero(int width) {
        return new SlicedVector(new double[width], 0);
    }

    /** Adds {@code other}'s values into these, element by element, and returns this. */
    SlicedVector add(SlicedVector other) {
        for (int i = 0; i < values.length; i++) {
            values[i] += other.values[i];
        }
        return this;
    }

    @Override
    public SlicedVector slice(int s, int count) {
        int start = (int) ((long) s * values.length / count);
        int end = (int) ((long) (s + 1) * values.length / count);
        return new SlicedVector(Arrays.copyOfRange(values, start, end), start);
    }

    @Override
    public SlicedVector addSlice(int s, int count, SlicedVector part) {
        for (int i = 0; i < part.values.length; i++) {
            values[part.from + i] += part.values[i];
        }
        return this;
    }
}

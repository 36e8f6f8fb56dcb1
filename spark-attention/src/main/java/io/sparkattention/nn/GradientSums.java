package io.sparkattention.nn;

import java.io.Serializable;
import java.util.Arrays;

/**
 * Float64 sums of a step's gradients over a run of rows, laid out as a {@link TrainableNetwork}
 * declares: the dense tensors as one array (the flat vector with the row-sparse tensors cut out),
 * each row-sparse tensor (an embedding table) as the rows some added row touched. A task's result
 * so weighs the dense tensors plus the touched rows, not the whole table. Sums are added to in
 * the caller's order and merged with {@link #add} in the engine's fixed order; a row absent from
 * one side adds nothing, so the bits do not depend on which rows another task touched.
 *
 * <p>Sums cut into S slices ({@link #slice}: slice s holds the dense values
 * [⌊s·D/S⌋, ⌊(s+1)·D/S⌋) and each table's touched rows with ids in [⌊s·R/S⌋, ⌊(s+1)·R/S⌋)) merge
 * slice by slice with {@link #add} and go back into whole sums with {@link #addSlice}. A slice
 * carries its dense values in float32, rounded once when cut, and slices add in float32, as
 * PyTorch's {@code .grad} sums: whole sums (a task's rows) add in float64, the slices that travel
 * between tasks and to the driver weigh half. Every merge adds element by element, so the bits
 * depend on neither the slice count nor the order tasks finish in. {@link GradientSumsCodec}
 * writes and reads them at memory speed for a serializer to carry.
 */
public final class GradientSums implements Serializable {

    private static final long serialVersionUID = 4L;

    private final GradientLayout layout;
    /** Which slice of how many these sums are (0 of 1 for whole sums, and for the one slice of 1). */
    final int sliceIndex;
    final int sliceCount;
    /** Where these sums' dense values start in the whole sums' dense part. */
    final int denseFrom;
    /** Whole sums' dense part, float64 (null in a slice, and in deferred sums until made whole). */
    double[] dense;
    /** Deferred sums' dense part ({@link #deferred(GradientLayout)}); null otherwise. */
    private DeferredDense deferred;
    /** A slice's dense values, float32 (null in whole sums). */
    final float[] wire;
    final TouchedRows[] sparse;

    /** Empty sums over {@code layout}. */
    public GradientSums(GradientLayout layout) {
        this(layout, new double[layout.denseCount]);
    }

    /**
     * Empty sums over {@code layout} whose dense part is {@code dense}, zeroed here and owned by
     * these sums from now on (a caller that reuses one buffer from step to step, e.g. a task
     * thread's, must not make new sums over it while these are still read).
     *
     * @throws IllegalArgumentException when dense is not the layout's {@link GradientLayout#denseCount()} long
     */
    public GradientSums(GradientLayout layout, double[] dense) {
        this(layout, checkedZeroed(layout, dense), null, 0, 1, 0);
        for (int s = 0; s < sparse.length; s++) {
            sparse[s] = new TouchedRows(layout.sparseRows[s], layout.sparseWidth[s]);
        }
    }

    /** Sums over {@code dense} or {@code wire} (not zeroed) as slice sliceIndex of sliceCount, no rows set. */
    GradientSums(GradientLayout layout, double[] dense, float[] wire, int sliceIndex, int sliceCount, int denseFrom) {
        this.layout = layout;
        this.dense = dense;
        this.wire = wire;
        this.sliceIndex = sliceIndex;
        this.sliceCount = sliceCount;
        this.denseFrom = denseFrom;
        this.sparse = new TouchedRows[layout.sparseTensors.length];
    }

    /**
     * Empty whole sums whose dense part is not one array: the slices and whole sums added into it
     * are held as they are ({@link DeferredDense}, by reference: the caller changes them no more)
     * and summed when {@link #toFlat(int, int, double[])} reads them, the bits of adding them into
     * zeroed sums. For a step's total, which the update reads range by range: no zeroing and adding
     * pass over the dense part. Any other operation makes the dense part whole first.
     */
    public static GradientSums deferred(GradientLayout layout) {
        GradientSums sums = new GradientSums(layout, null, null, 0, 1, 0);
        sums.deferred = new DeferredDense(layout.denseCount);
        for (int s = 0; s < sums.sparse.length; s++) {
            sums.sparse[s] = new TouchedRows(layout.sparseRows[s], layout.sparseWidth[s]);
        }
        return sums;
    }

    /** The whole sums' dense part as one array, summing a deferred one's parts once. */
    double[] whole() {
        if (deferred != null) {
            dense = deferred.toArray();
            deferred = null;
        }
        return dense;
    }

    private static double[] checkedZeroed(GradientLayout layout, double[] dense) {
        if (dense.length != layout.denseCount) {
            throw new IllegalArgumentException("dense buffer has " + dense.length + " values, expected "
                + layout.denseCount);
        }
        Arrays.fill(dense, 0.0);
        return dense;
    }

    /** The layout these sums follow. */
    public GradientLayout layout() {
        return layout;
    }

    /**
     * Adds {@code flat[from, to)} (a range of the flat vector that holds no row-sparse tensor) into
     * these sums and zeroes it there.
     *
     * @throws IllegalArgumentException when the range overlaps a row-sparse tensor
     */
    public void addAndClear(float[] flat, int from, int to) {
        requireWhole("addAndClear");
        whole();
        int d = layout.denseIndex(from, to);
        for (int i = from; i < to; i++, d++) {
            dense[d] += flat[i];
            flat[i] = 0f;
        }
    }

    /**
     * Adds row {@code row} of row-sparse tensor {@code s} (the s-th of
     * {@link TrainableNetwork#rowSparseTensors()}), read from its place in the flat vector
     * {@code flat}, into these sums and zeroes it there.
     */
    public void addRowAndClear(int s, int row, float[] flat) {
        int width = layout.sparseWidth[s];
        int from = layout.sparseOffset[s] + row * width;
        double[] target = sparse[s].row(row);
        int base = sparse[s].base(row);
        for (int j = 0; j < width; j++) {
            target[base + j] += flat[from + j];
            flat[from + j] = 0f;
        }
    }

    /**
     * {@link #addAndClear(float[], int, int)} from a float64 vector (a network that flushes its
     * pending sums in float64 first).
     *
     * @throws IllegalArgumentException when the range overlaps a row-sparse tensor
     */
    public void addAndClear(double[] flat, int from, int to) {
        requireWhole("addAndClear");
        whole();
        int d = layout.denseIndex(from, to);
        for (int i = from; i < to; i++, d++) {
            dense[d] += flat[i];
            flat[i] = 0;
        }
    }

    /** {@link #addRowAndClear(int, int, float[])} from a float64 vector. */
    public void addRowAndClear(int s, int row, double[] flat) {
        int width = layout.sparseWidth[s];
        int from = layout.sparseOffset[s] + row * width;
        double[] target = sparse[s].row(row);
        int base = sparse[s].base(row);
        for (int j = 0; j < width; j++) {
            target[base + j] += flat[from + j];
            flat[from + j] = 0;
        }
    }

    /**
     * Drops the spare capacity of the touched rows' arrays, so that a task result carries the
     * touched rows and nothing more (call before the sums leave the task).
     */
    public void trim() {
        for (TouchedRows rows : sparse) {
            rows.trim();
        }
    }

    /** Adds {@code other} into these sums, element by element (rows by id), and returns this. */
    public GradientSums add(GradientSums other) {
        if (other.denseLength() != denseLength() || other.sparse.length != sparse.length
            || other.sliceIndex != sliceIndex || other.sliceCount != sliceCount
            || (other.wire == null) != (wire == null)) {
            throw new IllegalArgumentException("gradient sums of another layout or slice: slice " + other.sliceIndex
                + " of " + other.sliceCount + " (" + other.denseLength() + " dense values) into slice " + sliceIndex
                + " of " + sliceCount + " (" + denseLength() + ")");
        }
        if (wire == null && deferred != null) {
            deferred.add(other.whole());
        } else if (wire == null) {
            double[] add = other.whole();
            whole();
            for (int i = 0; i < dense.length; i++) {
                dense[i] += add[i];
            }
        } else {
            for (int i = 0; i < wire.length; i++) {
                wire[i] += other.wire[i];
            }
        }
        for (int s = 0; s < sparse.length; s++) {
            sparse[s].add(other.sparse[s]);
        }
        return this;
    }

    /**
     * Slice {@code s} of {@code count} of these whole sums, a copy with its dense values rounded to
     * float32 (see the class comment).
     *
     * @throws IllegalArgumentException when s is not in [0, count) or these sums are a slice
     */
    public GradientSums slice(int s, int count) {
        requireWhole("slice");
        if (count < 1 || s < 0 || s >= count) {
            throw new IllegalArgumentException("slice " + s + " of " + count + " does not exist");
        }
        whole();
        int from = sliceStart(s, count, dense.length);
        int to = sliceStart(s + 1, count, dense.length);
        float[] values = new float[to - from];
        for (int i = 0; i < values.length; i++) {
            values[i] = (float) dense[from + i];
        }
        GradientSums part = new GradientSums(layout, null, values, s, count, from);
        for (int t = 0; t < sparse.length; t++) {
            int rows = layout.sparseRows[t];
            part.sparse[t] = sparse[t].rowsIn(sliceStart(s, count, rows), sliceStart(s + 1, count, rows));
        }
        return part;
    }

    /**
     * Adds {@code part} (slice {@code s} of {@code count}, alone or merged with others of its slice)
     * into these whole sums, element by element, and returns this.
     *
     * @throws IllegalArgumentException when part is not that slice of sums of this layout
     */
    public GradientSums addSlice(int s, int count, GradientSums part) {
        requireWhole("addSlice");
        if (part.sliceIndex != s || part.sliceCount != count || part.sparse.length != sparse.length
            || part.denseFrom != sliceStart(s, count, denseLength())
            || part.denseLength() != sliceStart(s + 1, count, denseLength()) - part.denseFrom) {
            throw new IllegalArgumentException("sums of slice " + part.sliceIndex + " of " + part.sliceCount
                + " (" + part.denseLength() + " dense values) are not slice " + s + " of " + count + " of these");
        }
        if (deferred != null) {
            deferred.add(part.denseFrom, part.wire);
        } else {
            for (int i = 0; i < part.wire.length; i++) {
                dense[part.denseFrom + i] += part.wire[i];
            }
        }
        for (int t = 0; t < sparse.length; t++) {
            sparse[t].add(part.sparse[t]);
        }
        return this;
    }

    private int denseLength() {
        return wire == null ? layout.denseCount : wire.length;
    }

    /** The first of n elements in slice s of count: ⌊s·n/count⌋. */
    static int sliceStart(int s, int count, int n) {
        return (int) ((long) s * n / count);
    }

    private void requireWhole(String operation) {
        if (wire != null) {
            throw new IllegalArgumentException(operation + " needs whole sums, these are slice " + sliceIndex
                + " of " + sliceCount);
        }
    }

    /** The sums as one flat vector of the network's {@link TrainableNetwork#parameterCount()} values (untouched rows 0). */
    public double[] toFlat() {
        return toFlat(new double[layout.parameterCount]);
    }

    /**
     * {@link #toFlat()} into {@code flat}, every value overwritten (a buffer reused from step to step).
     *
     * @return flat
     * @throws IllegalArgumentException when flat is not the network's parameter count long
     */
    public double[] toFlat(double[] flat) {
        if (flat.length != layout.parameterCount) {
            throw new IllegalArgumentException("flat vector has " + flat.length + " values, expected "
                + layout.parameterCount);
        }
        toFlat(0, flat.length, flat);
        return flat;
    }

    /**
     * Values [from, to) of {@link #toFlat()} into {@code into[0, to − from)}, every one of them
     * overwritten: the flat vector read a range at a time, without making it whole.
     *
     * @throws IllegalArgumentException when [from, to) is not within the flat vector or into is shorter
     */
    public void toFlat(int from, int to, double[] into) {
        requireWhole("toFlat");
        if (from < 0 || from > to || to > layout.parameterCount || into.length < to - from) {
            throw new IllegalArgumentException("flat range [" + from + ", " + to + ") of " + layout.parameterCount
                + " values into " + into.length);
        }
        // Segments in flat order: dense values up to each row-sparse tensor, the tensor, then the dense rest.
        int start = 0;
        int d = 0;
        for (int s = 0; s <= layout.sparseTensors.length && start < to; s++) {
            int next = s < layout.sparseTensors.length ? layout.sparseOffset[s] : layout.parameterCount;
            int a = Math.max(from, start), b = Math.min(to, next);
            if (a < b && deferred != null) {
                deferred.read(d + a - start, b - a, into, a - from);
            } else if (a < b) {
                System.arraycopy(dense, d + a - start, into, a - from, b - a);
            }
            d += next - start;
            if (s < layout.sparseTensors.length) {
                int end = next + layout.sparseRows[s] * layout.sparseWidth[s];
                a = Math.max(from, next);
                b = Math.min(to, end);
                if (a < b) {
                    Arrays.fill(into, a - from, b - from, 0.0);
                    sparse[s].copyInto(into, next - from, a - from, b - from);
                }
                start = end;
            }
        }
    }

    /** The rows of row-sparse tensor {@code s} these sums hold. */
    public int touchedRows(int s) {
        return sparse[s].count;
    }

    /**
     * The values these sums carry: the dense part plus every touched row (on the wire 8 bytes each,
     * a slice's dense values 4, plus 4 a row id).
     */
    public long values() {
        long n = denseLength();
        for (int s = 0; s < sparse.length; s++) {
            n += (long) sparse[s].count * layout.sparseWidth[s];
        }
        return n;
    }
}

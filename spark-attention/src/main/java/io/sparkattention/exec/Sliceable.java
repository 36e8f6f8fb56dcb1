package io.sparkattention.exec;

/**
 * An accumulator whose combine adds element by element, so that it can be cut into slices that
 * are combined apart and put back together with the same bits: {@link FixedOrderAggregate}'s
 * sliced merge ("reduce-scatter") sends slice s of every leaf's result to one task, which spreads
 * a merge over as many task slots as there are slices.
 *
 * <p>The contract, for any accumulators a, b, any slice count S ≥ 1 and s in [0, S), bit for bit:
 * <pre>
 *   combine(a.slice(s, S), b.slice(s, S))  ==  combine(a, b).slice(s, S)
 *   w = zero; for s in 0 .. S−1: w.addSlice(s, S, a.slice(s, S))     then  w == combine(zero, a)
 * </pre>
 * Elements (and whatever is not element-wise, such as scalar totals) belong to exactly one slice.
 *
 * @param <U> the accumulator type
 */
public interface Sliceable<U extends Sliceable<U>> {

    /**
     * Slice {@code s} of {@code count}: a new accumulator holding this one's part s (a copy: this
     * accumulator may be reused or changed afterwards).
     */
    U slice(int s, int count);

    /**
     * Adds {@code slice} (slice {@code s} of {@code count}, possibly combined with others of its
     * slice) into this whole accumulator's part s, as {@code combine} would, and returns this.
     */
    U addSlice(int s, int count, U slice);
}

package io.sparkattention.exec;

/**
 * An accumulator whose combine adds element by element, so that it can be cut into slices that
 * are combined apart and put back together: {@link FixedOrderAggregate}'s sliced merge
 * ("reduce-scatter") sends slice s of every leaf's result to one task, which spreads a merge over
 * as many task slots as there are slices.
 *
 * <p>The contract. Each element belongs to exactly one slice of S (whatever is not element-wise,
 * such as scalar totals, to slice 0). A slice holds its elements in a wire form w(v) (v itself, or
 * v rounded to a narrower type to travel lighter), fixed per element; the combine of two slices of
 * part s adds their wire values element by element, and {@code addSlice} adds each of them into
 * the whole accumulator's element as {@code combine} would. So, bit for bit, for any S and any
 * accumulators L₀ … Lₙ:
 * <pre>
 *   total = zero
 *   for s in 0 .. S−1:  total.addSlice(s, S, combine(…combine(L₀.slice(s, S), L₁.slice(s, S))…, Lₙ.slice(s, S)))
 *   total[e]  ==  0 + (w(L₀[e]) ⊕ w(L₁[e]) ⊕ … ⊕ w(Lₙ[e]))      for each element e, whatever S is
 * </pre>
 * and with w the identity, that is {@code combine(zero, combine(…combine(L₀, L₁)…, Lₙ))}: the
 * unsliced merge's bits.
 *
 * @param <U> the accumulator type
 */
public interface Sliceable<U extends Sliceable<U>> {

    /**
     * Slice {@code s} of {@code count}: a new accumulator holding this one's part s in its wire form
     * (a copy: this accumulator may be reused or changed afterwards).
     */
    U slice(int s, int count);

    /**
     * Adds {@code slice} (slice {@code s} of {@code count}, possibly combined with others of its
     * slice) into this whole accumulator's part s, element by element, and returns this.
     */
    U addSlice(int s, int count, U slice);
}

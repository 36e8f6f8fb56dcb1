package io.sparkattention.kernel;

/**
 * Where the causal diagonal sits when the query and key lengths differ.
 *
 * <p>With {@code L} queries and {@code S} keys, query {@code i} may attend key {@code j} when
 * {@code j <= i + offset}, where the offset is {@code 0} for {@link #TOP_LEFT} (PyTorch's
 * {@code is_causal}, {@code tril(ones(L, S))}) and {@code S - L} for {@link #BOTTOM_RIGHT}
 * (the last query sees every key: decoding L new tokens against a cache of S − L old ones).
 * Both agree when {@code L == S}.
 */
public enum CausalAlignment {
    /** Query i sees keys j ≤ i (PyTorch {@code is_causal=True}). */
    TOP_LEFT,
    /** Query i sees keys j ≤ i + S − L (FlashAttention ≥ 2.1, decoding against a KV cache). */
    BOTTOM_RIGHT;

    /** Offset of the diagonal: query i is aligned with key {@code i + diagonalOffset(L, S)}. */
    public long diagonalOffset(int queryLength, int keyLength) {
        return this == TOP_LEFT ? 0L : (long) keyLength - queryLength;
    }
}

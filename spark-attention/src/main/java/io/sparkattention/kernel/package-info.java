/**
 * Attention over one row's heads, and the products around it, in pure Java (no Spark class).
 *
 * <ul>
 *   <li>The tiled forward, weights and backward passes over one shared tile iteration
 *       ({@link io.sparkattention.kernel.FlashAttention}, its tile implementations behind
 *       {@link io.sparkattention.kernel.TileOps}), and whole-score attention for short rows
 *       ({@link io.sparkattention.kernel.DirectAttention}), chosen by length
 *       ({@link io.sparkattention.kernel.AttentionPath}); the exact log-sum-exp merge of partial
 *       results ({@link io.sparkattention.kernel.LseMerge}).</li>
 *   <li>What a call describes: shapes ({@link io.sparkattention.kernel.AttentionShape}), the
 *       spec ({@link io.sparkattention.kernel.AttentionSpec}: scale, causal mask and alignment,
 *       window, tile sizes), strided views into fused buffers
 *       ({@link io.sparkattention.kernel.MatrixView}), per-row masks
 *       ({@link io.sparkattention.kernel.RowMask}, {@link io.sparkattention.kernel.KeyBand}),
 *       dropout on the probabilities ({@link io.sparkattention.kernel.ProbabilityDropout}) and the
 *       caller's scratch ({@link io.sparkattention.kernel.Workspace}).</li>
 *   <li>The projections' GEMM ({@link io.sparkattention.kernel.LinearWeight},
 *       {@link io.sparkattention.kernel.WeightGradient}) on a Vector API micro-kernel or netlib's
 *       BLAS ({@link io.sparkattention.kernel.Blas}); the NaN/±∞ scan every input gets
 *       ({@link io.sparkattention.kernel.NonFinite}); the heads rule
 *       ({@link io.sparkattention.kernel.Heads}).</li>
 * </ul>
 *
 * <p>Every family with more than one implementation picks it once per JVM through
 * {@link io.sparkattention.kernel.ImplementationChoice}: named implementations, {@code auto}
 * first, a system property that overrides, one log line naming the choice. Public entry points
 * check their arguments; the inner loops do not. Every numeric path is tested against a float64
 * reference or PyTorch's.
 */
package io.sparkattention.kernel;

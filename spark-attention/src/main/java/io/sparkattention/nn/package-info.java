/**
 * The layers built on {@link io.sparkattention.kernel}, in pure Java (no Spark class).
 *
 * <ul>
 *   <li>Attention as PyTorch writes it: {@link io.sparkattention.nn.Attention#compute} over a row's
 *       heads, the one multi-head attention layer
 *       ({@link io.sparkattention.nn.MultiHeadAttentionLayer}: projections, the kernel, the output
 *       projection; its fused self-attention forward and backward) and its weights in
 *       {@code nn.MultiheadAttention}'s layout ({@link io.sparkattention.nn.MultiHeadAttentionWeights},
 *       {@link io.sparkattention.nn.MultiHeadAttentionInit}); a row made ready for the kernel
 *       ({@link io.sparkattention.nn.PreparedSequence}).</li>
 *   <li>Positional encodings ({@link io.sparkattention.nn.SinusoidalEncoding},
 *       {@link io.sparkattention.nn.RotaryEncoding}) and pooling
 *       ({@link io.sparkattention.nn.Pooling}: mean, first, last, max).</li>
 *   <li>The one classifier head of both classifier families, forward and backward
 *       ({@link io.sparkattention.nn.ClassifierHead}: pooling, linear, softmax cross-entropy).</li>
 *   <li>Training: the attention classifier's network, forward and backward
 *       ({@link io.sparkattention.nn.AttentionClassifierNetwork},
 *       {@link io.sparkattention.nn.ClassifierEvaluator}), its parameters as one flat vector
 *       ({@link io.sparkattention.nn.ParameterTensor}), the optimisers
 *       ({@link io.sparkattention.nn.Optimizer}: Adam, AdamW, gradient descent, PyTorch's formulas),
 *       {@link io.sparkattention.nn.LearningRateSchedule} and
 *       {@link io.sparkattention.nn.GradientClipping}.</li>
 * </ul>
 */
package io.sparkattention.nn;

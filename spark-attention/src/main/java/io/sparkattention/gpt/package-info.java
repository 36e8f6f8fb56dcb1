/**
 * The GPT-2 family of causal language models as blocks, without Spark: the architecture
 * ({@link io.sparkattention.gpt.GptConfig}), the tensors in Hugging Face's names and Conv1D layout
 * ({@link io.sparkattention.gpt.GptWeights}), and the decoder
 * ({@link io.sparkattention.gpt.GptDecoder}) that gives logits, each token's log-probability
 * (with Hugging Face's sliding window for rows longer than the positions), attention probabilities
 * and generations with a KV cache ({@link io.sparkattention.gpt.GptGeneration}); and the same
 * model in training ({@link io.sparkattention.gpt.GptTrainingNetwork}, the training engine's
 * {@link io.sparkattention.nn.TrainableNetwork} over {@link io.sparkattention.gpt.TokenBlock}s:
 * every block's backward, GPT-2's dropout sites and AdamW groups, the tied head's loss a chunk of
 * rows at a time) with GPT-2's seeded initialisation ({@link io.sparkattention.gpt.GptInit}).
 *
 * <p>Arrows: {@code gpt → nn → kernel}, and {@code gpt → bert} for the element-wise arithmetic the
 * two families share (LayerNorm and the exact GELU, {@link io.sparkattention.bert.EncoderMath}). The
 * attention is {@code nn}'s one {@link io.sparkattention.nn.MultiHeadAttentionLayer} on the
 * kernel's causal mask (never a materialised L×L mask), its KV cache
 * {@link io.sparkattention.nn.KeyValueCache}; the projections are {@code kernel}'s
 * {@link io.sparkattention.kernel.LinearWeight}s. Nothing here imports Spark or {@code io}:
 * {@code io.GptModelFiles} reads and writes model directories, the stages and the command line
 * live above.
 */
package io.sparkattention.gpt;

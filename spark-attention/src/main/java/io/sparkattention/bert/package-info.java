/**
 * The BERT family as blocks, each forward beside its backward, in pure Java (no Spark class):
 * the configuration and weights in Hugging Face's names ({@link io.sparkattention.bert.BertConfig},
 * {@link io.sparkattention.bert.BertWeights}), the encoder's inference over stacked rows
 * ({@link io.sparkattention.bert.BertEncoder}), the element-wise math shared by inference and
 * training ({@link io.sparkattention.bert.LayerNorm}, {@link io.sparkattention.bert.Gelu}, chosen
 * once per JVM between a scalar and a Vector API path), and the fine-tuning network
 * ({@link io.sparkattention.bert.BertClassifierNetwork}: the trainable top layers and a head as one
 * flat vector; {@link io.sparkattention.bert.BertClassifierEvaluator}: the losses and gradient of runs of
 * {@link io.sparkattention.bert.BertClassifierRow}s, stacked through every projection;
 * {@link io.sparkattention.bert.DropoutMask}: dropout keyed by seed, step, row and site, so no
 * result depends on partitioning, threads or retries). The attention inside each layer is
 * {@link io.sparkattention.nn.MultiHeadAttentionLayer}'s, on the kernel's direct and tiled paths.
 */
package io.sparkattention.bert;

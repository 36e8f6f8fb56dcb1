/**
 * The attention stages, as Spark ML pipeline stages:
 * {@link io.sparkattention.ml.ScaledDotProductAttention}, {@link io.sparkattention.ml.MultiHeadAttention}
 * and its {@link io.sparkattention.ml.MultiHeadAttentionModel} (PyTorch's {@code nn.MultiheadAttention}),
 * with the attention stages' shared params ({@link io.sparkattention.ml.AttentionParams}), schema
 * checks and the job they hand to {@code exec}; and the support every stage shares: the column
 * params ({@link io.sparkattention.ml.StageParams}), one broadcast per SparkContext
 * ({@link io.sparkattention.ml.ContextBroadcast}) and the persistence of stages that carry data
 * ({@link io.sparkattention.ml.StageData}). The positional encodings, the tokenizer and the
 * pretrained encoder are in {@link io.sparkattention.ml.feature},
 * the trainable classifier in {@link io.sparkattention.ml.classification}, and the decoding of
 * sequence columns all of them share in {@link io.sparkattention.rows}.
 *
 * <p>One DataFrame row is one sequence; matrix columns are {@code array<array<float>>},
 * {@code array<array<double>>}, {@code array<vector>} or flat {@code array<float>}, outputs
 * {@code array<array<float>>} (or flat). The stages follow MLlib's conventions: the Java param
 * idiom (a {@code (String uid)} and a no-arg constructor, one accessor per param, setters
 * returning the stage), one schema check shared by {@code transformSchema} and {@code transform},
 * {@code copy(extra)}, persistence with static {@code read()}/{@code load()} (inside a saved
 * {@code Pipeline} too), and {@code META-INF/services} entries for Spark Connect ML. They compute
 * row by row through a Catalyst expression ({@link io.sparkattention.exec.RowFunctions}), so they
 * also run on streaming DataFrames.
 */
package io.sparkattention.ml;

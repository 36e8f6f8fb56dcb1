/**
 * Spark ML pipeline stages: {@link io.sparkattention.ml.ScaledDotProductAttention},
 * {@link io.sparkattention.ml.MultiHeadAttention} and its
 * {@link io.sparkattention.ml.MultiHeadAttentionModel} (PyTorch's {@code nn.MultiheadAttention}),
 * {@link io.sparkattention.ml.feature.SinusoidalPositionalEncoding},
 * {@link io.sparkattention.ml.feature.RotaryPositionalEncoding}, and the trainable
 * {@link io.sparkattention.ml.classification.AttentionClassifier} with its
 * {@link io.sparkattention.ml.classification.AttentionClassificationModel} (MLlib's probabilistic classifier
 * API: rawPrediction, probability and prediction columns; data-parallel training, one Spark job
 * per optimiser step).
 *
 * <p>One DataFrame row is one sequence; matrix columns are {@code array<array<float>>},
 * {@code array<array<double>>} or {@code array<vector>}, outputs {@code array<array<float>>}.
 * The stages follow MLlib's conventions: the Java param idiom (a {@code (String uid)} and a
 * no-arg constructor, one accessor per param, setters returning the stage), one schema check
 * shared by {@code transformSchema} and {@code transform}, {@code copy(extra)}, persistence with
 * static {@code read()}/{@code load()} (inside a saved {@code Pipeline} too), and
 * {@code META-INF/services} entries for Spark Connect ML. They compute row by row through a
 * Catalyst expression ({@link io.sparkattention.exec.RowFunctions}), so they also run on
 * streaming DataFrames.
 */
package io.sparkattention.ml;

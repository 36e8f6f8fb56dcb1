/**
 * Feature transformers on sequence columns, as MLlib's {@code org.apache.spark.ml.feature}:
 * {@link io.sparkattention.ml.feature.SinusoidalPositionalEncoding} ("Attention Is All You Need"
 * encoding, added to the input or alone) and
 * {@link io.sparkattention.ml.feature.RotaryPositionalEncoding} (RoPE on query and key), with
 * their shared params {@link io.sparkattention.ml.feature.PositionalEncodingParams}. They compute
 * row by row through {@link io.sparkattention.ml.feature.MatrixFunction}, a Catalyst expression,
 * so they also run on streaming DataFrames.
 */
package io.sparkattention.ml.feature;

/**
 * Feature transformers on sequence columns, as MLlib's {@code org.apache.spark.ml.feature}:
 * {@link io.sparkattention.ml.feature.SinusoidalPositionalEncoding} ("Attention Is All You Need"
 * encoding, added to the input or alone) and
 * {@link io.sparkattention.ml.feature.RotaryPositionalEncoding} (RoPE on query and key), with
 * their shared params {@link io.sparkattention.ml.feature.PositionalEncodingParams}. They compute
 * row by row through {@link io.sparkattention.ml.feature.MatrixFunction}, a Catalyst expression,
 * so they also run on streaming DataFrames.
 *
 * <p>{@link io.sparkattention.ml.feature.HuggingFaceTokenizer} turns texts into token ids with a
 * Hugging Face {@code tokenizer.json} (Hugging Face's Rust tokenizers through DJL), for
 * {@link io.sparkattention.ml.feature.BertEncoderModel}, which encodes them with a pretrained
 * BERT-family encoder (e.g. all-MiniLM-L6-v2) in batches per task ({@link io.sparkattention.ml.feature.EncoderBatches}).
 */
package io.sparkattention.ml.feature;

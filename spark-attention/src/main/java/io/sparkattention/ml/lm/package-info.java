/**
 * Language models over DataFrames, as MLlib's packages are named for what their stages do:
 * {@link io.sparkattention.ml.lm.GptLanguageModel}, a GPT-2-style causal decoder
 * ({@link io.sparkattention.gpt.GptDecoder}) that scores every row of token ids ({@code log_prob},
 * {@code tokens}, {@code perplexity}, with a sliding window past the model's positions) and
 * generates a continuation for every prompt row (greedy or sampled with a counter-based generator
 * keyed by each row, with a KV cache per row), each row's numbers bitwise the same under any
 * partitioning. Its params are split as MLlib splits shared params: the column params every stage
 * has ({@link io.sparkattention.ml.StageParams}), scoring's ({@link io.sparkattention.ml.lm.ScoringParams})
 * and generation's ({@link io.sparkattention.ml.lm.GenerationParams}). Texts become ids through
 * {@link io.sparkattention.ml.feature.HuggingFaceTokenizer} with the model's {@code tokenizer.json}.
 */
package io.sparkattention.ml.lm;

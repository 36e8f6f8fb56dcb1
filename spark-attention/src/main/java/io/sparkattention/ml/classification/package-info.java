/**
 * The trainable classifiers, as MLlib's {@code org.apache.spark.ml.classification}: each an
 * Estimator whose model is MLlib's probabilistic classifier (rawPrediction, probability and
 * prediction columns), trained data-parallel with one Spark job per optimiser step whose gradient
 * sums are added in a fixed order, so one seed and one layout give the same bits.
 *
 * <ul>
 *   <li>{@link io.sparkattention.ml.classification.AttentionClassifier} and its
 *       {@link io.sparkattention.ml.classification.AttentionClassificationModel}: self-attention,
 *       pooling and a linear head over sequence columns, saved with the reference module's PyTorch
 *       state_dict.</li>
 *   <li>{@link io.sparkattention.ml.classification.BertClassifier} and its
 *       {@link io.sparkattention.ml.classification.BertClassificationModel}: a pretrained BERT
 *       encoder (a model, an ONNX or safetensors file, a bundled name) fine-tuned over token ids —
 *       its top layers and a head trained, the frozen layers run once per row and cached — saved
 *       in Hugging Face's names.</li>
 *   <li>The training summaries and {@code evaluate}'s
 *       ({@link io.sparkattention.ml.classification.AttentionClassifierSummary},
 *       {@link io.sparkattention.ml.classification.BertClassifierSummary},
 *       {@link io.sparkattention.ml.classification.AttentionClassificationSummary}: MLlib's
 *       multiclass figures), and {@link io.sparkattention.ml.classification.TrainingListener} for
 *       progress.</li>
 * </ul>
 */
package io.sparkattention.ml.classification;

/**
 * The trainable attention classifier, as MLlib's {@code org.apache.spark.ml.classification}:
 * {@link io.sparkattention.ml.classification.AttentionClassifier} (an Estimator: self-attention,
 * pooling and a linear head, trained data-parallel with one Spark job per optimiser step) and its
 * {@link io.sparkattention.ml.classification.AttentionClassificationModel} (MLlib's probabilistic
 * classifier API: rawPrediction, probability and prediction columns), with their params, the
 * training summary and {@code evaluate}'s
 * ({@link io.sparkattention.ml.classification.AttentionClassificationSummary}: MLlib's multiclass
 * figures), {@link io.sparkattention.ml.classification.TrainingListener} and persistence (params
 * metadata plus the reference module's PyTorch state_dict).
 */
package io.sparkattention.ml.classification;

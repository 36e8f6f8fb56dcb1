package io.sparkattention.ml.classification;

/**
 * Watches a classifier's fit step by step: the engine's {@link io.sparkattention.ml.training.TrainingListener}
 * under the name {@link AttentionClassifier#setTrainingListener} and
 * {@link BertClassifier#setTrainingListener} have always taken.
 */
@FunctionalInterface
public interface TrainingListener extends io.sparkattention.ml.training.TrainingListener {
}

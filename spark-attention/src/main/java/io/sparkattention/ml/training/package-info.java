/**
 * The training engine every learning stage stands on: a family supplies its network (a
 * {@link io.sparkattention.nn.TrainableNetwork}: parameters by name, an evaluator of its loss and
 * gradient) and its rows with their keys; the engine owns the rest, once.
 *
 * <ul>
 *   <li>The params every learning Estimator shares ({@link io.sparkattention.ml.training.TrainingParams},
 *       with warmup, clipping and dropout {@link io.sparkattention.ml.training.TransformerTrainingParams}),
 *       declared once over a {@link io.sparkattention.ml.training.TrainingParamSet} made for the
 *       family, read into {@link io.sparkattention.ml.training.TrainingSettings} (the optimiser and
 *       the schedule).</li>
 *   <li>The loop ({@link io.sparkattention.ml.training.Trainer}): one Spark job per step summed in
 *       a fixed order ({@code StepJob} on {@link io.sparkattention.exec.FixedOrderAggregate}), the
 *       sample by (seed, step, row key) ({@link io.sparkattention.ml.training.Sampling},
 *       {@link io.sparkattention.ml.training.RowKey}), clipping, the optimiser at the schedule's
 *       rate, the one stopping rule, the objective history and the
 *       {@link io.sparkattention.ml.training.TrainingListener}.</li>
 * </ul>
 */
package io.sparkattention.ml.training;

package io.sparkattention.ml.training;

/**
 * Where one training step's wall time went on the driver, as {@link Trainer} measured it: the
 * parameters' broadcast (made and, after the job, destroyed), the step's Spark job (the leaf
 * tasks, the group tasks and the results' way back) and the update (the mean gradient, clipping
 * and the optimiser), with the most gradient values one leaf task's result carried.
 *
 * @param step              the step, from 0
 * @param broadcastMs       making and destroying the step's broadcast of the parameters
 * @param jobMs             the step's job, from its submission to its result on the driver
 * @param updateMs          the mean gradient, clipping and the optimiser's step
 * @param taskResultValues  the most gradient values a leaf task's result carried ({@code GradientSums.values()})
 */
public record StepTimes(int step, double broadcastMs, double jobMs, double updateMs, long taskResultValues) {
}

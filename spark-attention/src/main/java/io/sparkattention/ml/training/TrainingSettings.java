package io.sparkattention.ml.training;

import io.sparkattention.nn.LearningRateSchedule;
import io.sparkattention.nn.Optimizer;
import io.sparkattention.nn.ParameterTensor;

import java.util.List;

/**
 * A fit's training settings, read once from its stage's {@link TrainingParams}: what the engine's
 * {@link Trainer} runs by.
 *
 * @param solver            {@code adam}, {@code adamw} or {@code gd} ({@link #optimizer})
 * @param stepSize          the learning rate (the schedule's peak)
 * @param weightDecay       decoupled weight decay
 * @param warmupSteps       the linear schedule's warmup, or -1 for a constant learning rate
 * @param maxGradNorm       the global norm gradients are clipped to, or 0 for none
 * @param maxIter           the optimiser steps
 * @param miniBatchFraction the fraction of rows each step samples ({@link Sampling})
 * @param tol               the stopping rule's threshold ({@link Trainer}), 0 for none
 * @param seed              the sampling's and the network's dropout seed
 */
public record TrainingSettings(String solver, double stepSize, double weightDecay, int warmupSteps,
                               double maxGradNorm, int maxIter, double miniBatchFraction, double tol, long seed) {

    /** The settings of {@code stage}; with {@link TransformerTrainingParams}, its warmup and clipping. */
    public static TrainingSettings of(TrainingParams<?> stage) {
        boolean schedule = stage instanceof TransformerTrainingParams<?>;
        return new TrainingSettings(stage.getSolver(), stage.getStepSize(), stage.getWeightDecay(),
            schedule ? ((TransformerTrainingParams<?>) stage).getWarmupSteps() : -1,
            schedule ? ((TransformerTrainingParams<?>) stage).getMaxGradNorm() : 0.0,
            stage.getMaxIter(), stage.getMiniBatchFraction(), stage.getTol(), stage.getSeed());
    }

    /**
     * The optimiser the solver names, PyTorch's formulas: {@code gd} θ ← θ − lr·g; {@code adam}
     * Adam with PyTorch's betas and eps (AdamW over every tensor when weightDecay &gt; 0);
     * {@code adamw} AdamW with Hugging Face's groups (no decay on biases and LayerNorm weights).
     *
     * @param parameters the network's tensors, for the decay groups
     * @throws IllegalArgumentException naming the solver when it is none of these
     */
    public Optimizer optimizer(List<ParameterTensor> parameters) {
        switch (solver) {
            case "gd":
                return Optimizer.gradientDescent(stepSize);
            case "adam":
                return Optimizer.adam(stepSize, weightDecay);
            case "adamw":
                return Optimizer.adamW(stepSize, weightDecay, parameters);
            default:
                throw new IllegalArgumentException("solver must be adam, adamw or gd, got " + solver);
        }
    }

    /** The learning rate's factor per step: Hugging Face's linear warmup and decay, or constant without warmup. */
    public LearningRateSchedule schedule() {
        return warmupSteps < 0 ? LearningRateSchedule.constant() : LearningRateSchedule.linearWarmup(warmupSteps,
            maxIter);
    }
}

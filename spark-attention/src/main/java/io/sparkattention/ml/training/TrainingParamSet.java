package io.sparkattention.ml.training;

import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.LongParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamValidators;
import org.apache.spark.ml.param.Params;

import java.io.Serializable;
import java.util.Objects;

/**
 * The Param objects every learning stage shares (the row weight, the optimiser, the steps, the
 * sampling, early stopping, the seed and the starting weights; with a schedule, warmup, clipping
 * and dropout too), created for one owner after its uid is set and exposed through
 * {@link TrainingParams} and {@link TransformerTrainingParams}: one definition, one set of rules
 * and their defaults, for each family's Estimator and its Model. What differs between families
 * (the solvers, the learning rate's default, what the seed and the initial weights are) is their
 * {@link Family}.
 */
public final class TrainingParamSet implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Hugging Face's {@code Trainer} defaults for a family with a schedule: no warmup, clipping at 1, dropout 0.1. */
    static final int DEFAULT_WARMUP_STEPS = 0;
    static final double DEFAULT_MAX_GRAD_NORM = 1.0;
    static final double DEFAULT_DROPOUT = 0.1;
    /** MLlib's default maxIter for iterative estimators here. */
    static final int DEFAULT_MAX_ITER = 100;

    /**
     * What a family makes of the shared params.
     *
     * @param solvers           the accepted {@code solver} values, the default first
     *                          ({@link TrainingSettings#optimizer})
     * @param solverDoc         {@code solver}'s documentation
     * @param weightDecayDoc    {@code weightDecay}'s documentation (which solvers decay)
     * @param stepSize          {@code stepSize}'s default
     * @param seedOwner         the class whose name's hash is the default seed (MLlib's {@code HasSeed})
     * @param seedDoc           what the seed seeds
     * @param initialWeightsDoc what {@code initialWeightsPath} holds
     * @param schedule          whether the family has warmupSteps, maxGradNorm and dropout
     */
    public record Family(String[] solvers, String solverDoc, String weightDecayDoc, double stepSize,
                         Class<?> seedOwner, String seedDoc, String initialWeightsDoc, boolean schedule)
        implements Serializable {

        /** @throws IllegalArgumentException when no solver is named */
        public Family {
            if (solvers.length == 0) {
                throw new IllegalArgumentException("a family needs at least one solver");
            }
            solvers = solvers.clone();
            Objects.requireNonNull(seedOwner, "seedOwner");
        }
    }

    final Param<String> weightCol;
    final Param<String> solver;
    final DoubleParam stepSize;
    final DoubleParam weightDecay;
    final IntParam maxIter;
    final DoubleParam miniBatchFraction;
    final DoubleParam tol;
    final LongParam seed;
    final Param<String> initialWeightsPath;
    /** Null when the family has no schedule. */
    final IntParam warmupSteps;
    final DoubleParam maxGradNorm;
    final DoubleParam dropout;

    /** The shared params of {@code owner}, as {@code family} reads them, with their defaults set. */
    public TrainingParamSet(Params owner, Family family) {
        weightCol = new Param<>(owner, "weightCol",
            "row weight column (numeric, finite, >= 0); empty: every row weighs 1");
        solver = new Param<>(owner, "solver", family.solverDoc(), ParamValidators.inArray(family.solvers()));
        stepSize = new DoubleParam(owner, "stepSize", family.schedule() ? "peak learning rate (> 0)"
            : "learning rate (> 0)", ParamValidators.gt(0));
        weightDecay = new DoubleParam(owner, "weightDecay", family.weightDecayDoc(), ParamValidators.gtEq(0));
        maxIter = new IntParam(owner, "maxIter", "number of optimiser steps (>= 0)", ParamValidators.gtEq(0));
        miniBatchFraction = new DoubleParam(owner, "miniBatchFraction",
            "fraction of rows sampled for each step, in (0, 1]; each row is kept or not by (seed, step, row) alone; "
                + "1: full batch", ParamValidators.inRange(0, 1, false, true));
        tol = new DoubleParam(owner, "tol", "stop early (>= 0): before step i >= " + Trainer.TOL_WINDOW + ", when "
            + "the step losses improved by less than tol, relative, over the last " + Trainer.TOL_WINDOW + " steps, "
            + "(l(i-" + Trainer.TOL_WINDOW + ") - l(i)) / |l(i-" + Trainer.TOL_WINDOW + ")| < tol, step i is not "
            + "taken and the loss over every row at the final weights ends the history; 0: run maxIter steps",
            ParamValidators.gtEq(0));
        seed = new LongParam(owner, "seed", family.seedDoc());
        initialWeightsPath = new Param<>(owner, "initialWeightsPath", family.initialWeightsDoc());
        owner.setDefault(weightCol, "");
        owner.setDefault(solver, family.solvers()[0]);
        owner.setDefault(stepSize, family.stepSize());
        owner.setDefault(weightDecay, 0.0);
        owner.setDefault(maxIter, DEFAULT_MAX_ITER);
        owner.setDefault(miniBatchFraction, 1.0);
        owner.setDefault(tol, 0.0);
        owner.setDefault(seed, (long) family.seedOwner().getName().hashCode());
        owner.setDefault(initialWeightsPath, "");
        if (family.schedule()) {
            warmupSteps = new IntParam(owner, "warmupSteps", "steps of linear warmup from lr 0 (>= 0), then linear "
                + "decay to 0 at maxIter (Hugging Face's get_linear_schedule_with_warmup)", ParamValidators.gtEq(0));
            maxGradNorm = new DoubleParam(owner, "maxGradNorm",
                "clip the global gradient norm to this (clip_grad_norm_); 0: no clipping", ParamValidators.gtEq(0));
            dropout = new DoubleParam(owner, "dropout", "dropout probability in the trainable layers and before the "
                + "head, in [0, 1)", ParamValidators.inRange(0, 1, true, false));
            owner.setDefault(warmupSteps, DEFAULT_WARMUP_STEPS);
            owner.setDefault(maxGradNorm, DEFAULT_MAX_GRAD_NORM);
            owner.setDefault(dropout, DEFAULT_DROPOUT);
        } else {
            warmupSteps = null;
            maxGradNorm = null;
            dropout = null;
        }
    }

    /** @throws IllegalStateException naming the param when the family has no schedule */
    <P> P scheduled(P param, String name) {
        if (param == null) {
            throw new IllegalStateException("this stage has no " + name + " param (its family has no schedule)");
        }
        return param;
    }
}

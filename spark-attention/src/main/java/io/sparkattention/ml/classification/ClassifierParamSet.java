package io.sparkattention.ml.classification;

import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.LongParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamValidators;
import org.apache.spark.ml.param.Params;

import java.io.Serializable;

/**
 * The Param objects of {@link AttentionClassifier} and {@link AttentionClassificationModel}
 * beyond MLlib's own classifier params (features, label, prediction, rawPrediction, probability,
 * thresholds), created for one owner after its uid is set and exposed through
 * {@link AttentionClassifierParams}: one definition and one set of defaults for the Estimator and
 * its Model, as MLlib's Scala stages share a params trait.
 */
public final class ClassifierParamSet implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Values of {@code pooling}. */
    static final String[] POOLINGS = {"mean", "first", "last"};
    /** Values of {@code solver}. */
    static final String[] SOLVERS = {"adam", "gd"};

    final Param<String> weightCol;
    final Param<String> keyLengthCol;
    final IntParam numHeads;
    final BooleanParam causal;
    final BooleanParam residual;
    final Param<String> pooling;
    final Param<String> solver;
    final IntParam maxIter;
    final DoubleParam stepSize;
    final DoubleParam weightDecay;
    final DoubleParam miniBatchFraction;
    final DoubleParam tol;
    final LongParam seed;
    final Param<String> initialWeightsPath;

    ClassifierParamSet(Params owner) {
        weightCol = new Param<>(owner, "weightCol",
            "row weight column (numeric, finite, >= 0); empty: every row weighs 1");
        keyLengthCol = new Param<>(owner, "keyLengthCol",
            "integer column of valid tokens per row: tokens at positions >= its value are ignored (the row is "
                + "truncated); empty (the default, also when the input has a key_length column): every token is "
                + "valid. fit and transform log the column used");
        numHeads = new IntParam(owner, "numHeads", "number of attention heads (>= 1, divides the embedding width)",
            ParamValidators.gtEq(1));
        causal = new BooleanParam(owner, "causal", "token i attends to tokens j <= i only (PyTorch's is_causal)");
        residual = new BooleanParam(owner, "residual", "pool x + attention(x) (true) or attention(x) alone (false)");
        pooling = new Param<>(owner, "pooling",
            "how a row's tokens become one vector: mean (over valid tokens), first or last (valid token)",
            ParamValidators.inArray(POOLINGS));
        solver = new Param<>(owner, "solver",
            "optimiser: adam (PyTorch's Adam; AdamW when weightDecay > 0) or gd (w <- w - stepSize * gradient)",
            ParamValidators.inArray(SOLVERS));
        maxIter = new IntParam(owner, "maxIter", "number of optimiser steps (>= 0)", ParamValidators.gtEq(0));
        stepSize = new DoubleParam(owner, "stepSize", "learning rate (> 0)", ParamValidators.gt(0));
        weightDecay = new DoubleParam(owner, "weightDecay",
            "decoupled weight decay of AdamW (>= 0; adam only); 0: plain Adam", ParamValidators.gtEq(0));
        miniBatchFraction = new DoubleParam(owner, "miniBatchFraction",
            "fraction of rows sampled for each step, in (0, 1]; 1: full batch",
            ParamValidators.inRange(0, 1, false, true));
        tol = new DoubleParam(owner, "tol",
            "stop early (>= 0): before each step i >= " + ClassifierTrainer.TOL_WINDOW + ", when the full-batch loss "
                + "l (the weighted mean cross-entropy over every row) improved by less than tol, relative, over the "
                + "last " + ClassifierTrainer.TOL_WINDOW + " steps, (l(i-" + ClassifierTrainer.TOL_WINDOW
                + ") - l(i)) / |l(i-" + ClassifierTrainer.TOL_WINDOW + ")| < tol, step i is not taken and l(i) is "
                + "the final loss; with miniBatchFraction < 1 each step then costs one more pass for l; "
                + "0: run maxIter steps",
            ParamValidators.gtEq(0));
        seed = new LongParam(owner, "seed", "random seed of the initial weights and of the mini-batch sampling");
        initialWeightsPath = new Param<>(owner, "initialWeightsPath",
            "safetensors state_dict of the reference AttentionClassifier to start from (any Hadoop file system); "
                + "empty: initialise as PyTorch does from seed");

        owner.setDefault(weightCol, "");
        owner.setDefault(keyLengthCol, "");
        owner.setDefault(numHeads, 1);
        owner.setDefault(causal, false);
        owner.setDefault(residual, true);
        owner.setDefault(pooling, "mean");
        owner.setDefault(solver, "adam");
        owner.setDefault(maxIter, 100);
        owner.setDefault(stepSize, 0.001);
        owner.setDefault(weightDecay, 0.0);
        owner.setDefault(miniBatchFraction, 1.0);
        owner.setDefault(tol, 0.0);
        // MLlib's HasSeed default: the class name's hash, the same in every run.
        owner.setDefault(seed, (long) AttentionClassifier.class.getName().hashCode());
        owner.setDefault(initialWeightsPath, "");
    }
}

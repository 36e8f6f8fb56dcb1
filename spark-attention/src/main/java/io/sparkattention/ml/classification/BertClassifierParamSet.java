package io.sparkattention.ml.classification;

import io.sparkattention.exec.FixedOrderAggregate;
import io.sparkattention.io.BundledModels;
import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.LongParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamValidators;
import org.apache.spark.ml.param.Params;

import java.io.Serializable;

/**
 * The Param objects of {@link BertClassifier} and {@link BertClassificationModel} beyond MLlib's
 * own classifier params, created for one owner after its uid is set and exposed through
 * {@link BertClassifierParams}: one definition and one set of defaults for the Estimator and its
 * Model. The defaults are Hugging Face's {@code Trainer}'s where it has one (learning rate 5e-5,
 * no weight decay, no warmup, gradient norm clipped at 1, dropout 0.1).
 */
public final class BertClassifierParamSet implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Values of {@code pooling}. */
    static final String[] POOLINGS = {"mean", "cls"};
    /** Values of {@code solver}. */
    static final String[] SOLVERS = {"adamw", "adam"};

    final Param<String> weightCol;
    final Param<String> modelName;
    final Param<String> encoderPath;
    final Param<String> encoderPrefix;
    final IntParam encoderNumHeads;
    final Param<String> initialWeightsPath;
    final IntParam trainableLayers;
    final Param<String> pooling;
    final Param<String> solver;
    final DoubleParam stepSize;
    final DoubleParam weightDecay;
    final IntParam warmupSteps;
    final DoubleParam maxGradNorm;
    final DoubleParam dropout;
    final IntParam maxIter;
    final DoubleParam miniBatchFraction;
    final LongParam seed;
    final DoubleParam tol;
    final IntParam numPartitions;

    BertClassifierParamSet(Params owner) {
        weightCol = new Param<>(owner, "weightCol",
            "row weight column (numeric, finite, >= 0); empty: every row weighs 1");
        modelName = new Param<>(owner, "modelName",
            "the bundled encoder to fine-tune when encoderPath is empty and no encoder model is set");
        encoderPath = new Param<>(owner, "encoderPath",
            "the encoder to fine-tune: an ONNX file (.onnx) or a Hugging Face BertModel safetensors file, on any "
                + "Hadoop file system; empty: modelName");
        encoderPrefix = new Param<>(owner, "encoderPrefix",
            "the tensors' name prefix in a safetensors encoderPath (bert., 0.auto_model.), or empty");
        encoderNumHeads = new IntParam(owner, "encoderNumHeads",
            "the encoder's attention heads (a safetensors file does not record them); 0: from the ONNX graph or "
                + "the file's metadata", ParamValidators.gtEq(0));
        initialWeightsPath = new Param<>(owner, "initialWeightsPath",
            "safetensors file holding the head to start from (classifier.weight [K, E], classifier.bias [K]); "
                + "empty: weight ~ N(0, 0.02) from seed, bias 0, as Hugging Face initialises it");
        trainableLayers = new IntParam(owner, "trainableLayers",
            "the top N encoder layers train with the head; 0: the head only; -1: everything, the embeddings too",
            ParamValidators.gtEq(-1));
        pooling = new Param<>(owner, "pooling",
            "how a row's token states become one vector: mean (over every token) or cls (the first token)",
            ParamValidators.inArray(POOLINGS));
        solver = new Param<>(owner, "solver",
            "optimiser: adamw (decoupled weight decay, none on biases and LayerNorm weights, as Hugging Face "
                + "groups them) or adam (no decay)", ParamValidators.inArray(SOLVERS));
        stepSize = new DoubleParam(owner, "stepSize", "peak learning rate (> 0)", ParamValidators.gt(0));
        weightDecay = new DoubleParam(owner, "weightDecay", "AdamW's decoupled weight decay (>= 0; adamw only)",
            ParamValidators.gtEq(0));
        warmupSteps = new IntParam(owner, "warmupSteps", "steps of linear warmup from lr 0 (>= 0), then linear "
            + "decay to 0 at maxIter (Hugging Face's get_linear_schedule_with_warmup)", ParamValidators.gtEq(0));
        maxGradNorm = new DoubleParam(owner, "maxGradNorm",
            "clip the global gradient norm to this (clip_grad_norm_); 0: no clipping", ParamValidators.gtEq(0));
        dropout = new DoubleParam(owner, "dropout", "dropout probability in the trainable layers and before the "
            + "head, in [0, 1)", ParamValidators.inRange(0, 1, true, false));
        maxIter = new IntParam(owner, "maxIter", "number of optimiser steps (>= 0)", ParamValidators.gtEq(0));
        miniBatchFraction = new DoubleParam(owner, "miniBatchFraction",
            "fraction of rows sampled for each step, in (0, 1]; each row is kept or not by (seed, step, row) alone",
            ParamValidators.inRange(0, 1, false, true));
        seed = new LongParam(owner, "seed", "seed of the head's initialisation, the sampling and the dropout masks");
        tol = new DoubleParam(owner, "tol", "stop early (>= 0): before step i >= " + BertTrainer.TOL_WINDOW
            + ", when the step losses improved by less than tol, relative, over the last " + BertTrainer.TOL_WINDOW
            + " steps; 0: run maxIter steps", ParamValidators.gtEq(0));
        numPartitions = new IntParam(owner, "numPartitions",
            "the training rows are laid out in this many partitions of consecutive rows, which each step folds in "
                + "runs on at most " + FixedOrderAggregate.LEAVES_PER_SLOT + " tasks per task slot; "
                + "a fit's bits depend on it and never on the input's partitioning; 0: the cluster's default "
                + "parallelism", ParamValidators.gtEq(0));

        owner.setDefault(weightCol, "");
        owner.setDefault(modelName, BundledModels.ALL_MINILM_L6_V2);
        owner.setDefault(encoderPath, "");
        owner.setDefault(encoderPrefix, "");
        owner.setDefault(encoderNumHeads, 0);
        owner.setDefault(initialWeightsPath, "");
        owner.setDefault(trainableLayers, -1);
        owner.setDefault(pooling, "mean");
        owner.setDefault(solver, "adamw");
        owner.setDefault(stepSize, 5e-5);
        owner.setDefault(weightDecay, 0.0);
        owner.setDefault(warmupSteps, 0);
        owner.setDefault(maxGradNorm, 1.0);
        owner.setDefault(dropout, 0.1);
        owner.setDefault(maxIter, 100);
        owner.setDefault(miniBatchFraction, 1.0);
        // MLlib's HasSeed default: the class name's hash, the same in every run.
        owner.setDefault(seed, (long) BertClassifier.class.getName().hashCode());
        owner.setDefault(tol, 0.0);
        owner.setDefault(numPartitions, 0);
    }
}

package io.sparkattention.ml.classification;

import io.sparkattention.exec.FixedOrderAggregate;
import io.sparkattention.io.BundledModels;
import io.sparkattention.ml.training.TrainingParamSet;
import org.apache.spark.ml.param.IntParam;
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

    /** Values of {@code pooling}: {@code mean}, {@code cls}, and {@code first}, read as {@code cls}. */
    static final String[] POOLINGS = {"mean", "cls", "first"};
    /** Values of {@code solver}. */
    static final String[] SOLVERS = {"adamw", "adam"};

    /** The shared training params as this family reads them (Hugging Face's Trainer's defaults). */
    static final TrainingParamSet.Family FAMILY = new TrainingParamSet.Family(SOLVERS,
        "optimiser: adamw (decoupled weight decay, none on biases and LayerNorm weights, as Hugging Face "
            + "groups them) or adam (no decay)", "AdamW's decoupled weight decay (>= 0; adamw only)", 5e-5,
        BertClassifier.class, "seed of the head's initialisation, the sampling and the dropout masks",
        "safetensors file holding the head to start from (classifier.weight [K, E], classifier.bias [K]); "
            + "empty: weight ~ N(0, 0.02) from seed, bias 0, as Hugging Face initialises it", true);

    final Param<String> modelName;
    final Param<String> encoderPath;
    final Param<String> encoderPrefix;
    final IntParam encoderNumHeads;
    final IntParam trainableLayers;
    final Param<String> pooling;
    final TrainingParamSet training;
    final IntParam numPartitions;

    BertClassifierParamSet(Params owner) {
        training = new TrainingParamSet(owner, FAMILY);
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
        trainableLayers = new IntParam(owner, "trainableLayers",
            "the top N encoder layers train with the head; 0: the head only; -1: everything, the embeddings too",
            ParamValidators.gtEq(-1));
        pooling = new Param<>(owner, "pooling",
            "how a row's token states become one vector: mean (over every token) or cls (the first token; also "
                + "read as first)",
            ParamValidators.inArray(POOLINGS));
        numPartitions = new IntParam(owner, "numPartitions",
            "the training rows are laid out in this many partitions of consecutive rows, which each step folds in "
                + "runs on at most " + FixedOrderAggregate.LEAVES_PER_SLOT + " tasks per task slot; "
                + "a fit's bits depend on it and never on the input's partitioning; 0: the cluster's default "
                + "parallelism", ParamValidators.gtEq(0));

        owner.setDefault(modelName, BundledModels.ALL_MINILM_L6_V2);
        owner.setDefault(encoderPath, "");
        owner.setDefault(encoderPrefix, "");
        owner.setDefault(encoderNumHeads, 0);
        owner.setDefault(trainableLayers, -1);
        owner.setDefault(pooling, "mean");
        owner.setDefault(numPartitions, 0);
    }
}

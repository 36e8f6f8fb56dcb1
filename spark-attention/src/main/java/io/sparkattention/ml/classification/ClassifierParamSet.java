package io.sparkattention.ml.classification;

import io.sparkattention.ml.training.TrainingParamSet;
import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamValidators;
import org.apache.spark.ml.param.Params;

import java.io.Serializable;

/**
 * The Param objects of {@link AttentionClassifier} and {@link AttentionClassificationModel}
 * beyond MLlib's own classifier params (features, label, prediction, rawPrediction, probability,
 * thresholds) and the engine's shared ones ({@link #training}), created for one owner after its uid
 * is set and exposed through {@link AttentionClassifierParams}: one definition and one set of
 * defaults for the Estimator and its Model, as MLlib's Scala stages share a params trait.
 */
public final class ClassifierParamSet implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Values of {@code pooling}: the network's names, and {@code cls}, read as {@code first}. */
    static final String[] POOLINGS = {"mean", "first", "last", "cls"};
    /** Values of {@code solver}. */
    static final String[] SOLVERS = {"adam", "gd"};

    /** The shared training params as this family reads them. */
    static final TrainingParamSet.Family FAMILY = new TrainingParamSet.Family(SOLVERS,
        "optimiser: adam (PyTorch's Adam; AdamW when weightDecay > 0) or gd (w <- w - stepSize * gradient)",
        "decoupled weight decay of AdamW (>= 0; adam only); 0: plain Adam", 0.001, AttentionClassifier.class,
        "random seed of the initial weights and of the mini-batch sampling",
        "safetensors state_dict of the reference AttentionClassifier to start from (any Hadoop file system); "
            + "empty: initialise as PyTorch does from seed", false);

    final TrainingParamSet training;
    final Param<String> keyLengthCol;
    final IntParam numHeads;
    final BooleanParam causal;
    final BooleanParam residual;
    final Param<String> pooling;

    ClassifierParamSet(Params owner) {
        training = new TrainingParamSet(owner, FAMILY);
        keyLengthCol = new Param<>(owner, "keyLengthCol",
            "integer column of valid tokens per row: tokens at positions >= its value are ignored (the row is "
                + "truncated); empty (the default, also when the input has a key_length column): every token is "
                + "valid. fit and transform log the column used");
        numHeads = new IntParam(owner, "numHeads", "number of attention heads (>= 1, divides the embedding width)",
            ParamValidators.gtEq(1));
        causal = new BooleanParam(owner, "causal", "token i attends to tokens j <= i only (PyTorch's is_causal)");
        residual = new BooleanParam(owner, "residual", "pool x + attention(x) (true) or attention(x) alone (false)");
        pooling = new Param<>(owner, "pooling",
            "how a row's tokens become one vector: mean (over valid tokens), first (or cls) or last (valid token)",
            ParamValidators.inArray(POOLINGS));

        owner.setDefault(keyLengthCol, "");
        owner.setDefault(numHeads, 1);
        owner.setDefault(causal, false);
        owner.setDefault(residual, true);
        owner.setDefault(pooling, "mean");
    }
}

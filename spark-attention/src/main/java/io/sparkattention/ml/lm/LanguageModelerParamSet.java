package io.sparkattention.ml.lm;

import io.sparkattention.ml.training.TrainingParamSet;
import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamValidators;
import org.apache.spark.ml.param.Params;

import java.io.Serializable;

/**
 * The Param objects of {@link GptLanguageModeler} beyond the training engine's shared ones,
 * created for one owner after its uid is set and exposed through {@link LanguageModelerParams}. A
 * new model's default shape is nanoGPT's character-level one (6 layers, 384 wide, 6 heads, blocks
 * of 256 ids) over the byte tokenizer.
 */
public final class LanguageModelerParamSet implements Serializable {

    private static final long serialVersionUID = 1L;

    /** {@code tokenizer}'s value for the library's byte tokenizer. */
    public static final String BYTES = "bytes";
    /** {@code tokenizer}'s value for GPT-2's tokenizer. */
    public static final String GPT2 = "gpt2";
    /** Values of {@code schedule}. */
    static final String[] SCHEDULES = {"linear", "cosine"};

    /**
     * What the language model makes of the engine's shared params: AdamW with GPT-2's groups (the
     * default) or Adam; nanoGPT's and GPT-2's peak learning rate 6e-4; {@code initialWeightsPath}
     * a model directory.
     */
    static final TrainingParamSet.Family FAMILY = new TrainingParamSet.Family(new String[] {"adamw", "adam"},
        "optimiser: adamw (decoupled weight decay on the 2-D tensors only: wte, wpe and the projection matrices, as "
            + "GPT-2 and nanoGPT group them) or adam (no decay)", "AdamW's decoupled weight decay (>= 0; adamw only)",
        6e-4, GptLanguageModeler.class, "seed of a new model's initialisation, the sampling and the dropout masks",
        "a GPT-2 model directory to continue training (config.json, model.safetensors, optionally tokenizer.json), "
            + "on any Hadoop file system; empty: a new model from nLayer, nEmbd, nHead, blockSize and tokenizer", true);

    final TrainingParamSet training;
    final Param<String> textCol;
    final Param<String> idsCol;
    final IntParam nLayer;
    final IntParam nEmbd;
    final IntParam nHead;
    final IntParam blockSize;
    final Param<String> tokenizer;
    final BooleanParam packing;
    final DoubleParam validationFraction;
    final IntParam evalEvery;
    final Param<String> schedule;
    final IntParam rowsPerStep;
    final IntParam numPartitions;

    LanguageModelerParamSet(Params owner) {
        training = new TrainingParamSet(owner, FAMILY);
        textCol = new Param<>(owner, "textCol", "the column of texts, tokenized with the model's tokenizer");
        idsCol = new Param<>(owner, "idsCol", "a column of token ids (array<int> or array<bigint>) taken as they are "
            + "instead of textCol; empty: textCol");
        nLayer = new IntParam(owner, "nLayer", "a new model's blocks (n_layer, >= 1)", ParamValidators.gtEq(1));
        nEmbd = new IntParam(owner, "nEmbd", "a new model's width (n_embd, >= 1, divisible by nHead)",
            ParamValidators.gtEq(1));
        nHead = new IntParam(owner, "nHead", "a new model's attention heads (n_head, >= 1)", ParamValidators.gtEq(1));
        blockSize = new IntParam(owner, "blockSize", "ids per packed block (>= 2); a new model's positions "
            + "(n_positions); at most a loaded model's", ParamValidators.gtEq(2));
        tokenizer = new Param<>(owner, "tokenizer", "a new model's tokenizer: " + BYTES + " (UTF-8 bytes, 256 ids), "
            + GPT2 + " (GPT-2's BPE, 50,257 ids) or a tokenizer.json path; its vocabulary is the model's");
        packing = new BooleanParam(owner, "packing", "join the rows' ids (the end-of-text id between rows when the "
            + "tokenizer has one) and cut them into blocks of blockSize, dropping the last partial block; false: each "
            + "row one sequence, at most the model's positions long");
        validationFraction = new DoubleParam(owner, "validationFraction", "the fraction of the sequences held out "
            + "for the validation loss, evenly spread (sequence k when floor((k+1)F) > floor(kF)), in [0, 1)",
            ParamValidators.inRange(0, 1, true, false));
        evalEvery = new IntParam(owner, "evalEvery", "the validation loss before steps 0, N, 2N, ... and after the "
            + "last; 0: after the last step only", ParamValidators.gtEq(0));
        schedule = new Param<>(owner, "schedule", "the learning rate after warmupSteps: linear (to 0 at maxIter) or "
            + "cosine (half a cosine to 0 at maxIter)", ParamValidators.inArray(SCHEDULES));
        rowsPerStep = new IntParam(owner, "rowsPerStep", "the sequences a step samples on average "
            + "(miniBatchFraction = min(1, rowsPerStep / sequences)); 0: miniBatchFraction as set",
            ParamValidators.gtEq(0));
        numPartitions = new IntParam(owner, "numPartitions", "the training sequences are laid out in this many "
            + "partitions of consecutive keys (a fit's bits depend on it, never on the input's partitioning); 0: the "
            + "cluster's default parallelism", ParamValidators.gtEq(0));
        owner.setDefault(textCol, "text");
        owner.setDefault(idsCol, "");
        owner.setDefault(nLayer, 6);
        owner.setDefault(nEmbd, 384);
        owner.setDefault(nHead, 6);
        owner.setDefault(blockSize, 256);
        owner.setDefault(tokenizer, BYTES);
        owner.setDefault(packing, true);
        owner.setDefault(validationFraction, 0.0);
        owner.setDefault(evalEvery, 0);
        owner.setDefault(schedule, "linear");
        owner.setDefault(rowsPerStep, 0);
        owner.setDefault(numPartitions, 0);
    }
}

package io.sparkattention.ml.lm;

import io.sparkattention.gpt.GptDecoder;
import io.sparkattention.gpt.GptTrainingNetwork;
import io.sparkattention.gpt.TokenBlock;
import io.sparkattention.ml.Shipped;
import io.sparkattention.ml.training.Trainer;
import io.sparkattention.ml.training.TrainingListener;
import io.sparkattention.ml.training.TrainingSettings;
import io.sparkattention.nn.LearningRateSchedule;
import io.sparkattention.sparkinternal.ParamsMetadata;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.ml.Estimator;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.DefaultParamsWritable;
import org.apache.spark.ml.util.Identifiable$;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.types.StructType;

import java.util.Arrays;
import java.util.Objects;

/**
 * Trains a GPT-2-style causal language model on a DataFrame of texts or token ids, data-parallel on
 * the library's training engine ({@link Trainer}): GPT-2's blocks with their backward
 * ({@link GptTrainingNetwork}), each step's loss the sum of every sampled sequence's
 * −log-likelihood over its predicted tokens, AdamW with GPT-2's decay groups, warmup and linear or
 * cosine decay, global-norm clipping and dropout where GPT-2 places it. Its model is the decoder's
 * {@link GptLanguageModel}, which scores and generates, with the fit's {@link GptLanguageModelSummary}.
 *
 * <pre>{@code
 * GptLanguageModel lm = new GptLanguageModeler()
 *     .setNLayer(4).setNEmbd(128).setNHead(4).setBlockSize(128).setTokenizer("bytes")   // a new byte-level model
 *     .setValidationFraction(0.1).setEvalEvery(50).setStepSize(1e-3).setWarmupSteps(50).setSchedule("cosine")
 *     .setMaxIter(500).setRowsPerStep(16).fit(texts);                                    // a "text" column
 * lm.summary().validationHistory();                                                      // natural-log loss per token
 * }</pre>
 *
 * <p><b>The start</b>: {@code initialWeightsPath}, a Hugging Face GPT-2 directory (continued
 * training, with the directory's tokenizer), or a new model of {@code nLayer}, {@code nEmbd},
 * {@code nHead} and {@code blockSize} positions over {@code tokenizer}'s vocabulary, initialised as
 * GPT-2 from {@code seed} (normal(0, 0.02), the residual projections scaled by 1/√(2·nLayer)).
 *
 * <p><b>The sequences</b>: with {@code packing} (the default) the rows' ids in row order, joined by
 * the tokenizer's end-of-text id (GPT-2's {@code <|endoftext|>}; none for bytes), cut into blocks of
 * {@code blockSize} ids, the last partial block dropped, as Hugging Face's {@code run_clm} groups
 * texts; without, each row is one sequence of at most the model's positions. A sequence's key is
 * its index, so sampling and dropout — and so the model, bit for bit — depend on the rows, their
 * order, the params and {@code numPartitions}, never on the input's partitioning or a lost
 * executor. {@code validationFraction} holds out evenly spread sequences ({@link HeldOut}), or
 * {@link #fit(Dataset, Dataset)} takes a validation set; its loss is computed without dropout
 * every {@code evalEvery} steps and after the last, heard by {@link #setValidationListener}.
 *
 * <p>Bad input fails before the first step, naming the row (its position in the input, from 1)
 * and the column: an id outside the vocabulary, a null, a row longer than the positions without
 * packing.
 */
public final class GptLanguageModeler extends Estimator<GptLanguageModel>
    implements LanguageModelerParams<GptLanguageModeler>, DefaultParamsWritable {

    private static final long serialVersionUID = 1L;

    private final String uid;
    private final LanguageModelerParamSet params;
    private transient TrainingListener listener;
    private transient TrainingListener validationListener;

    /** An estimator with a random uid and the default params. */
    public GptLanguageModeler() {
        this(Identifiable$.MODULE$.randomUID("gptLanguageModeler"));
    }

    /**
     * An estimator with the given uid (used by persistence and {@link #copy}).
     *
     * @param uid the stage's uid
     */
    public GptLanguageModeler(String uid) {
        this.uid = Objects.requireNonNull(uid, "uid");
        this.params = new LanguageModelerParamSet(this);
    }

    @Override
    public String uid() {
        return uid;
    }

    @Override
    public LanguageModelerParamSet modelerParamSet() {
        return params;
    }

    /**
     * Hears the objective history as it is known (not persisted): the loss of step i's sample before
     * step i, then the loss over every training sequence at the final weights.
     *
     * @return this estimator
     */
    public GptLanguageModeler setTrainingListener(TrainingListener value) {
        this.listener = value;
        return this;
    }

    /**
     * Hears each validation loss as it is known (not persisted): {@code (i, loss)} before step i for
     * i = 0, evalEvery, 2·evalEvery, …, and after the last step.
     *
     * @return this estimator
     */
    public GptLanguageModeler setValidationListener(TrainingListener value) {
        this.validationListener = value;
        return this;
    }

    @Override
    public StructType transformSchema(StructType schema) {
        String column = getIdsCol().isEmpty() ? getTextCol() : getIdsCol();
        if (!Arrays.asList(schema.fieldNames()).contains(column)) {
            throw new IllegalArgumentException("the training set has no column " + column + " ("
                + (getIdsCol().isEmpty() ? "textCol" : "idsCol") + "); its columns: "
                + String.join(", ", schema.fieldNames()));
        }
        return schema;
    }

    @Override
    public GptLanguageModel fit(Dataset<?> dataset) {
        return fit(dataset, (Dataset<?>) null);
    }

    /**
     * Fits the model, its validation loss over {@code validation}'s sequences (made as the training
     * set's: its rows packed or one per row).
     *
     * @param validation rows with the training set's text or ids column, or null
     * @throws IllegalArgumentException naming the param, column or row (from 1) that does not fit
     */
    public GptLanguageModel fit(Dataset<?> dataset, Dataset<?> validation) {
        checkParams(dataset, validation);
        StartingModel start = StartingModel.of(this);
        JavaSparkContext sc = JavaSparkContext.fromSparkContext(dataset.sparkSession().sparkContext());
        // The cluster's slots, read once: they fix every step's layout for the whole fit.
        int slots = sc.defaultParallelism();
        int partitions = getNumPartitions() > 0 ? getNumPartitions() : slots;
        try (LanguageModelData data = LanguageModelData.of(this, start, dataset, validation, partitions)) {
            GptTrainingNetwork network = new GptTrainingNetwork(start.config(), getDropout());
            float[] theta = start.weights() != null ? network.flatten(start.weights())
                : network.initialParameters(getSeed());
            Broadcast<Shipped<GptTrainingNetwork>> shipped = sc.broadcast(Shipped.of(network));
            try {
                ValidationRun validating = new ValidationRun(data.validation == null ? null
                    : new ValidationLoss(sc, data.validation, shipped), getEvalEvery(), theta, listener,
                    validationListener);
                double[] history = new Trainer<TokenBlock>("GptLanguageModeler", sc, settings(data.trainingCount),
                    validating).withSchedule(learningRates()).train(data.training, slots, shipped, TokenBlock::key, theta);
                validating.finish(history.length - 1);
                GptLanguageModel model = new GptLanguageModel(uid, new GptDecoder(network.weights(theta)),
                    start.tokenizer());
                return model.withSummary(new GptLanguageModelSummary(history, validating.iterations(),
                    validating.losses())).setParent(this);
            } finally {
                shipped.destroy();
            }
        }
    }

    /** The engine's settings: the params, with rowsPerStep as the sampled fraction of the training sequences. */
    private TrainingSettings settings(long sequences) {
        double fraction = getRowsPerStep() > 0 ? Math.min(1.0, (double) getRowsPerStep() / sequences)
            : getMiniBatchFraction();
        return new TrainingSettings(getSolver(), getStepSize(), getWeightDecay(), getWarmupSteps(), getMaxGradNorm(),
            getMaxIter(), fraction, getTol(), getSeed());
    }

    /** The learning rate's factors: warmup, then linear or cosine decay to 0 at maxIter. */
    private LearningRateSchedule learningRates() {
        return "cosine".equals(getSchedule()) ? LearningRateSchedule.cosineWarmup(getWarmupSteps(), getMaxIter())
            : LearningRateSchedule.linearWarmup(getWarmupSteps(), getMaxIter());
    }

    /** Checks what needs no data: a batch DataFrame, the params that go together. */
    private void checkParams(Dataset<?> dataset, Dataset<?> validation) {
        if (dataset.isStreaming() || (validation != null && validation.isStreaming())) {
            throw new IllegalArgumentException("GptLanguageModeler " + uid + " trains on batch DataFrames, not a "
                + "streaming one");
        }
        transformSchema(dataset.schema());
        if (!getWeightCol().isEmpty()) {
            throw new IllegalArgumentException("weightCol " + getWeightCol() + ": every sequence of a language model "
                + "weighs 1 (a packed block mixes rows); leave weightCol empty");
        }
        if ("adam".equals(getSolver()) && getWeightDecay() > 0) {
            throw new IllegalArgumentException("weightDecay is " + getWeightDecay() + ", but solver adam has no weight "
                + "decay; use solver adamw");
        }
        if (getEvalEvery() > 0 && getValidationFraction() == 0 && validation == null) {
            throw new IllegalArgumentException("evalEvery " + getEvalEvery() + " needs validation sequences: set "
                + "validationFraction or give fit a validation set");
        }
    }

    @Override
    public GptLanguageModeler copy(ParamMap extra) {
        GptLanguageModeler copy = defaultCopy(extra);
        return copy.setTrainingListener(listener).setValidationListener(validationListener);
    }

    /** @return the reader of a saved estimator's params */
    public static MLReader<GptLanguageModeler> read() {
        return ParamsMetadata.reader();
    }

    /**
     * Loads an estimator saved with {@code write().save(path)}.
     *
     * @param path the directory it was saved to
     * @return the estimator
     */
    public static GptLanguageModeler load(String path) {
        return read().load(path);
    }
}

package io.sparkattention.ml.classification;

import io.sparkattention.io.ClassifierStateDict;
import io.sparkattention.io.SafeTensors;
import io.sparkattention.ml.Shipped;
import io.sparkattention.ml.StageUid;
import io.sparkattention.ml.training.Trainer;
import io.sparkattention.ml.training.TrainingSettings;
import io.sparkattention.nn.AttentionClassifierNetwork;
import io.sparkattention.nn.LabelledSequence;
import io.sparkattention.nn.Pooling;
import io.sparkattention.sparkinternal.ParamsMetadata;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.ml.classification.ProbabilisticClassifier;
import org.apache.spark.ml.linalg.Matrix;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.param.ParamValidators;
import org.apache.spark.ml.util.DefaultParamsWritable;
import org.apache.spark.ml.util.Identifiable$;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;

/**
 * Trains an attention classifier data-parallel on Spark: PyTorch's reference module
 * ({@code AttentionClassifier} in {@code spark-attention/src/test/resources/fixtures/training/make_training_fixtures.py}),
 * <pre>
 *   a      = MultiheadAttention(E, numHeads)(x, x, x)   self-attention over the row's valid tokens
 *   h      = x + a  (residual)   or   a
 *   pooled = mean over valid tokens | first token | last valid token       (pooling)
 *   logits = Linear(E, K)(pooled)
 *   loss   = Σ w·cross_entropy(logits, label) / Σ w
 * </pre>
 * with PyTorch's gradients and its Adam, AdamW and gradient descent updates. One row is one
 * sequence: {@code featuresCol} L×E (any type the other stages accept; rows may differ in L), the
 * class index in {@code labelCol}, an optional row weight and an optional valid-token count
 * ({@code keyLengthCol}: none by default, whatever the input's columns; fit logs the column used).
 * K comes from {@link #numClasses()}, else the label column's metadata ({@code NominalAttribute}),
 * else the initial weights, else the largest label + 1, which must stay below
 * 1000 ({@code ClassCount.MAX_INFERRED_CLASSES}; see {@link ClassCount}).
 *
 * <p>{@code fit} validates everything first — the schema, every row (a label that is not an
 * integer in [0, K), a NaN or infinite feature, a bad weight or key length), {@code numHeads}
 * against E, an empty set, the initial weights' tensors — and fails naming the column, row
 * (1-based, in input order) or tensor before any step and before anything is sized by the
 * labels. Then each step is one Spark job (the training engine's {@link Trainer}) whose gradient sums go
 * up a fixed-order tree ({@link io.sparkattention.exec.FixedOrderAggregate}: leaf tasks fold runs of consecutive
 * partitions), so a fit's bits depend on the data, its partitioning, the params and the cluster's
 * task slots read when the fit starts ({@code SparkContext.defaultParallelism}: pin it with
 * {@code spark.default.parallelism}), never on the scheduling or a lost executor. The model's
 * {@code summary()} gives the training set's accuracy, precision, recall and F-measure and the
 * objective history; {@code evaluate(df)} the same figures on another set.
 *
 * <pre>{@code
 * AttentionClassificationModel model = new AttentionClassifier()
 *     .setFeaturesCol("tokens").setNumHeads(4).setMaxIter(200).setStepSize(1e-3).fit(train);
 * double[] history = model.summary().objectiveHistory();
 * double accuracy = model.evaluate(test).accuracy();
 * model.exportPyTorch("/models/cls.safetensors");
 * }</pre>
 */
public final class AttentionClassifier
    extends ProbabilisticClassifier<Matrix, AttentionClassifier, AttentionClassificationModel>
    implements AttentionClassifierParams<AttentionClassifier>, DefaultParamsWritable {

    private static final long serialVersionUID = 1L;

    private static final Logger LOG = LoggerFactory.getLogger(AttentionClassifier.class);

    private final String uid;
    private ClassifierParamSet params;
    private IntParam numClasses;
    /** Driver-side only: not a param, not persisted, carried by {@link #copy}. */
    private transient TrainingListener listener;

    /** An estimator with a random uid. */
    public AttentionClassifier() {
        this(Identifiable$.MODULE$.randomUID("attentionClassifier"));
    }

    /**
     * An estimator with the given uid (used by persistence and {@link #copy}).
     *
     * @param uid the stage's uid
     */
    public AttentionClassifier(String uid) {
        this(StageUid.park(uid));
    }

    /** Runs after {@link StageUid#park} parked the uid for MLlib's constructors. */
    private AttentionClassifier(StageUid uid) {
        this.uid = uid.take();
        params = new ClassifierParamSet(this);
        numClasses = new IntParam(this, "numClasses", "number of classes K (>= 2); 0: from the label column's "
            + "metadata, else the initial weights, else the largest label + 1, where labels must be below "
            + ClassCount.MAX_INFERRED_CLASSES, ParamValidators.gtEq(0));
        setDefault(numClasses, 0);
    }

    /**
     * Number of classes K (an estimator param: the model's K is {@code numClasses()}). Default 0:
     * K comes from the label column's metadata ({@code NominalAttribute} or
     * {@code BinaryAttribute}), else from the initial weights, else it is the largest label + 1,
     * and then every label must be below 1000: a stray label
     * such as 10⁸ fails {@code fit} naming its row before anything is sized by it. Set it to
     * train more classes, or classes some of which the training set lacks. Given sources must agree.
     *
     * @return the param
     */
    public IntParam numClasses() {
        return numClasses;
    }

    /** @return the value of {@link #numClasses()} (or its default) */
    public int getNumClasses() {
        return (Integer) getOrDefault(numClasses);
    }

    /**
     * Sets {@link #numClasses()}.
     *
     * @param value K, or 0 to infer it
     * @return this estimator
     */
    public AttentionClassifier setNumClasses(int value) {
        set(numClasses, value);
        return this;
    }

    @Override
    public String uid() {
        return uid != null ? uid : StageUid.current();
    }

    /** Internal: the stage's Param objects. */
    @Override
    public ClassifierParamSet classifierParamSet() {
        return params;
    }

    @Override
    public StructType transformSchema(StructType schema) {
        return ClassifierSchema.validate(this, schema, true, -1);
    }

    /**
     * Reports each step's loss and the final loss of later fits (see
     * {@link io.sparkattention.ml.training.TrainingListener}).
     * The listener is not a param: it is neither saved nor compared, and it does not change the model.
     *
     * @param value the listener, or null for none
     * @return this estimator
     */
    public AttentionClassifier setTrainingListener(TrainingListener value) {
        listener = value;
        return this;
    }

    /** @return the listener {@link #setTrainingListener} set, or null */
    public TrainingListener getTrainingListener() {
        return listener;
    }

    /**
     * Validates the data and the params, then trains (called by {@code fit}, which has checked
     * the schema and cast the label column to double).
     *
     * @throws IllegalArgumentException naming the column, row or tensor of the first problem
     */
    @Override
    public AttentionClassificationModel train(Dataset<?> dataset) {
        JavaSparkContext sc = JavaSparkContext.fromSparkContext(dataset.sparkSession().sparkContext());
        InitialWeights initial = getInitialWeightsPath().isEmpty() ? null
            : InitialWeights.read(getInitialWeightsPath(), sc.hadoopConfiguration());
        ClassCount classes = ClassCount.of(getNumClasses(), ClassCount.declared(dataset.schema(), getLabelCol()),
            initial != null ? initial.numClasses : -1, getInitialWeightsPath());
        LOG.info("AttentionClassifier fit: {}", ClassifierSchema.keyLengthNote(this, dataset.schema()));
        try (TrainingData data = TrainingData.decode(dataset, getFeaturesCol(), getLabelCol(), getWeightCol(),
            getKeyLengthCol(), classes)) {
            int embedDim = data.embedDim();
            ClassifierArchitecture.checkHeads(embedDim, getNumHeads(), "column " + getFeaturesCol());
            ClassifierArchitecture shape = new ClassifierArchitecture(embedDim, getNumHeads(),
                classes.numClasses(data.profile.maxLabel), getCausal(), getResidual(), Pooling.parse(getPooling()));
            AttentionClassifierNetwork network = shape.network();
            float[] theta = initial != null ? initial.parameters(network, embedDim)
                : network.initialParameters(getSeed());
            // The cluster's slots, read once: they fix every step's layout for the whole fit.
            Broadcast<Shipped<AttentionClassifierNetwork>> shipped = sc.broadcast(Shipped.of(network));
            double[] history;
            try {
                history = new Trainer<LabelledSequence>("AttentionClassifier", sc, TrainingSettings.of(this), listener)
                    .train(data.keyedRows(), sc.defaultParallelism(), shipped, LabelledSequence::key, theta);
            } finally {
                shipped.destroy();
            }
            AttentionClassificationModel model = copyValues(new AttentionClassificationModel(uid, shape, theta),
                new ParamMap());
            return model.withTrainingSummary(dataset, history);
        }
    }

    @Override
    public AttentionClassifier copy(ParamMap extra) {
        AttentionClassifier copy = defaultCopy(extra);
        return copy.setTrainingListener(listener);
    }

    /**
     * Reader for {@link #load}.
     *
     * @return MLlib's default params reader
     */
    public static MLReader<AttentionClassifier> read() {
        return ParamsMetadata.reader();
    }

    /**
     * Loads an estimator saved with {@code write().save(path)}.
     *
     * @param path the directory it was saved to
     * @return the estimator
     */
    public static AttentionClassifier load(String path) {
        return read().load(path);
    }

    /** A state_dict to start from: its class count fixes K, its width is checked against the data's E. */
    private static final class InitialWeights {
        final String path;
        final SafeTensors file;
        final int embedDim;
        final int numClasses;

        private InitialWeights(String path, SafeTensors file, int[] ek) {
            this.path = path;
            this.file = file;
            this.embedDim = ek[0];
            this.numClasses = ek[1];
        }

        static InitialWeights read(String path, Configuration conf) {
            SafeTensors file = ClassifierFiles.read(path, conf, "initialWeightsPath");
            try {
                return new InitialWeights(path, file, ClassifierStateDict.dimensions(file));
            } catch (IOException e) {
                throw new IllegalArgumentException("initialWeightsPath: " + e.getMessage(), e);
            }
        }

        float[] parameters(AttentionClassifierNetwork network, int dataEmbedDim) {
            if (embedDim != dataEmbedDim) {
                throw new IllegalArgumentException(path + ": tensor '" + ClassifierStateDict.CLASSIFIER_WEIGHT
                    + "' is for embed_dim " + embedDim + ", but the features have E = " + dataEmbedDim);
            }
            try {
                return ClassifierStateDict.load(file, network.parameters(), network.parameterCount());
            } catch (IOException e) {
                throw new IllegalArgumentException("initialWeightsPath: " + e.getMessage(), e);
            }
        }
    }
}

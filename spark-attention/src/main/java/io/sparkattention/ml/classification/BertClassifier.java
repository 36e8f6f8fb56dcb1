package io.sparkattention.ml.classification;

import io.sparkattention.ml.Shipped;
import io.sparkattention.bert.BertClassifierNetwork;
import io.sparkattention.bert.BertClassifierRow;
import io.sparkattention.bert.BertClassifierSettings;
import io.sparkattention.bert.BertEncoder;
import io.sparkattention.io.SafeTensors;
import io.sparkattention.ml.feature.BertEncoderModel;
import io.sparkattention.ml.StageSchema;
import io.sparkattention.ml.StageUid;
import io.sparkattention.ml.training.Trainer;
import io.sparkattention.ml.training.TrainingSettings;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.ml.classification.ProbabilisticClassifier;
import org.apache.spark.ml.classification.ProbabilisticClassifierParams;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.param.ParamValidators;
import org.apache.spark.ml.util.Identifiable$;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.ml.util.MLWritable;
import org.apache.spark.ml.util.MLWriter;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.NumericType;
import org.apache.spark.sql.types.StructType;

import java.io.IOException;
import java.util.SplittableRandom;

/**
 * Fine-tunes a pretrained BERT encoder with a linear head on its pooled output, data-parallel on
 * Spark, as Hugging Face's {@code Trainer} fine-tunes a {@code BertModel} (the model and the
 * optimiser of {@code make_finetune_fixtures.py}, PyTorch's gradients):
 * <pre>
 *   x      = BertModel(ids)                  the row's own length, no padding
 *   pooled = mean of x's tokens | x[0]       (pooling mean | cls)
 *   logits = pooled·Wᵀ + b                   W: K×E (dropout on pooled while training)
 *   loss   = Σ w·CE(logits, label) / Σ w
 * </pre>
 * One row is one text: {@code featuresCol} (default {@code input_ids}) holds its token ids,
 * {@code array<int>} or {@code array<bigint>}, [CLS] … [SEP] in place, as
 * {@link io.sparkattention.ml.feature.HuggingFaceTokenizer} writes them; {@code labelCol} its
 * class; an optional {@code weightCol} its weight. The encoder is, in this order, the model given
 * to {@link #setEncoder}, the file in {@code encoderPath} (ONNX or safetensors), or the bundled
 * {@code modelName} (all-MiniLM-L6-v2 by default). {@code trainableLayers} N trains the top N
 * layers and the head (0: the head only; −1, the default: everything); the frozen layers' output
 * is computed once per row and cached, so a head-only fit costs one forward pass per row.
 *
 * <p>{@code fit} checks everything first — the schema, the encoder, the initial head, every row (an
 * id outside the vocabulary, more tokens than the encoder's positions, a label outside [0, K), a
 * bad weight), an empty set — naming the column, row (from 1, in input order), file or tensor,
 * before any step. Then it lays the rows out in {@code numPartitions} partitions of consecutive
 * rows (the frozen states computed there) and runs one Spark job per step ({@link BertTrainer}):
 * leaf tasks fold runs of consecutive partitions and the gradient sums go up a fixed-order tree
 * ({@link io.sparkattention.exec.FixedOrderAggregate}), a row's sampling and dropout are keyed by
 * (seed, step, row), so a
 * fit's bits depend on the data, the params, numPartitions and the cluster's task slots read when
 * the fit starts ({@code SparkContext.defaultParallelism}: pin it with
 * {@code spark.default.parallelism}) — not on the input's partitioning, the scheduling or a lost
 * executor.
 *
 * <pre>{@code
 * BertClassificationModel model = new BertClassifier()
 *     .setTrainableLayers(2).setStepSize(3e-4).setMaxIter(200).setMiniBatchFraction(0.01)
 *     .fit(HuggingFaceTokenizer.pretrained("all-minilm-l6-v2").transform(train));
 * model.exportPyTorch("/models/fine-tuned.safetensors");
 * }</pre>
 */
public final class BertClassifier extends ProbabilisticClassifier<int[], BertClassifier, BertClassificationModel>
    implements BertClassifierParams<BertClassifier>, MLWritable {

    private static final long serialVersionUID = 1L;

    /** The token ids column's default, {@code HuggingFaceTokenizer}'s output. */
    static final String DEFAULT_IDS_COL = "input_ids";
    /** Hugging Face's {@code initializer_range}: the head's initial weights' standard deviation. */
    static final double HEAD_INIT_STD = 0.02;

    private final String uid;
    private BertClassifierParamSet params;
    private IntParam numClasses;
    /** Driver-side only: not a param, carried by {@link #copy}, saved by {@link #write} beside the params. */
    private transient BertEncoderModel encoderModel;
    private transient TrainingListener listener;

    /** An estimator with a random uid. */
    public BertClassifier() {
        this(Identifiable$.MODULE$.randomUID("bertClassifier"));
    }

    /**
     * An estimator with the given uid (used by persistence and {@link #copy}).
     *
     * @param uid the stage's uid
     */
    public BertClassifier(String uid) {
        this(StageUid.park(uid));
    }

    private BertClassifier(StageUid uid) {
        this.uid = uid.take();
        params = new BertClassifierParamSet(this);
        numClasses = new IntParam(this, "numClasses", "number of classes K (>= 2); 0: from the label column's "
            + "metadata, else the initial weights, else the largest label + 1 (labels below "
            + ClassCount.MAX_INFERRED_CLASSES + ")", ParamValidators.gtEq(0));
        setDefault(numClasses, 0);
        setDefault(featuresCol(), DEFAULT_IDS_COL);
    }

    /**
     * Number of classes K; 0 (default): from the label column's metadata, else the initial weights,
     * else the largest label + 1 (see {@link ClassCount}). An estimator param: the model's K is {@code numClasses()}.
     *
     * @return the param
     */
    public IntParam numClasses() {
        return numClasses;
    }

    /** @return the value of {@link #numClasses()} (or its default) */
    public int getNumClasses() {
        return (Integer) getOrDefault(numClasses());
    }

    /**
     * Sets {@link #numClasses()}.
     *
     * @param value the new value
     * @return this stage
     */
    public BertClassifier setNumClasses(int value) {
        set(numClasses(), value);
        return this;
    }

    @Override
    public String uid() {
        return uid != null ? uid : StageUid.current();
    }

    /** Internal: the stage's Param objects. */
    @Override
    public BertClassifierParamSet bertParamSet() {
        return params;
    }

    /**
     * Fine-tunes this encoder (it wins over {@code encoderPath} and {@code modelName}); not a
     * param, but copied with the estimator and saved with it.
     *
     * @param value a fitted encoder, or null to use the params
     * @return this estimator
     */
    public BertClassifier setEncoder(BertEncoderModel value) {
        encoderModel = value;
        return this;
    }

    /** @return the encoder {@link #setEncoder} set, or null */
    public BertEncoderModel getEncoder() {
        return encoderModel;
    }

    /**
     * Hears each step's loss (over its sample, dropout on) as it is known, then the loss over every
     * row at the final weights: maxIter + 1 calls (fewer when {@code tol} stops early). Not a
     * param; it does not change the model.
     *
     * @param value the listener, or null for none
     * @return this estimator
     */
    public BertClassifier setTrainingListener(TrainingListener value) {
        listener = value;
        return this;
    }

    /** @return the listener {@link #setTrainingListener} set, or null */
    public TrainingListener getTrainingListener() {
        return listener;
    }

    @Override
    public StructType transformSchema(StructType schema) {
        return validate(this, schema, true);
    }

    /** The schema checks the estimator and its model share: ids, weight and (fitting) label columns. */
    static <T extends ProbabilisticClassifierParams & BertClassifierParams<?>> StructType validate(
        T stage, StructType schema, boolean fitting) {
        DataType ids = StageSchema.field(schema, stage.getFeaturesCol(), "featuresCol").dataType();
        if (!(ids instanceof ArrayType a) || !(a.elementType().equals(DataTypes.IntegerType)
            || a.elementType().equals(DataTypes.LongType))) {
            throw new IllegalArgumentException("column " + stage.getFeaturesCol() + " (featuresCol): expected token "
                + "ids, array<int> or array<bigint>, found " + ids.simpleString());
        }
        if (fitting && !stage.getWeightCol().isEmpty()) {
            DataType t = StageSchema.field(schema, stage.getWeightCol(), "weightCol").dataType();
            if (!(t instanceof NumericType)) {
                throw new IllegalArgumentException("column " + stage.getWeightCol() + " (weightCol): expected a "
                    + "numeric type, found " + t.simpleString());
            }
        }
        if (fitting) {
            StageSchema.field(schema, stage.getLabelCol(), "labelCol");
        }
        return stage.validateAndTransformSchema(schema, fitting, ids);
    }

    /**
     * Validates the encoder, the head, the params and the data, then fine-tunes (called by
     * {@code fit}, which has checked the schema and cast the label column to double).
     *
     * @throws IllegalArgumentException naming the column, row, file, tensor or param of the first problem
     */
    @Override
    public BertClassificationModel train(Dataset<?> dataset) {
        JavaSparkContext sc = JavaSparkContext.fromSparkContext(dataset.sparkSession().sparkContext());
        Configuration conf = sc.hadoopConfiguration();
        if ("adam".equals(getSolver()) && getWeightDecay() > 0) {
            throw new IllegalArgumentException("weightDecay is " + getWeightDecay() + ", but solver adam has no weight "
                + "decay; use solver adamw");
        }
        BertEncoder encoder = EncoderSource.resolve(this, conf);
        int layers = encoder.config().layers();
        if (getTrainableLayers() > layers) {
            throw new IllegalArgumentException("trainableLayers is " + getTrainableLayers() + ", but the encoder has "
                + layers + " layers");
        }
        float[][] head = initialHead(encoder.config().hidden(), conf);
        ClassCount classes = ClassCount.of(getNumClasses(), ClassCount.declared(dataset.schema(), getLabelCol()),
            head != null ? head[1].length : -1, getInitialWeightsPath());
        try (BertTrainingData data = BertTrainingData.decode(dataset, getFeaturesCol(), getLabelCol(), getWeightCol(),
            classes, encoder.config())) {
            int k = classes.numClasses(data.maxLabel);
            if (head == null) {
                head = seededHead(k, encoder.config().hidden(), getSeed());
            }
            BertClassifierNetwork network = new BertClassifierNetwork(encoder.weights(), head[0], head[1],
                new BertClassifierSettings(getTrainableLayers(),
                    PoolingNames.parse(getPooling(), BertClassifierParamSet.POOLINGS),
                    getDropout()));
            Broadcast<Shipped<BertClassifierNetwork>> shipped = sc.broadcast(Shipped.of(network));
            try {
                // The cluster's slots, read once: they fix every step's layout for the whole fit.
                int slots = sc.defaultParallelism();
                int partitions = getNumPartitions() > 0 ? getNumPartitions() : slots;
                JavaRDD<BertClassifierRow> rows = data.layOut(shipped, partitions);
                float[] theta = network.initialParameters();
                double[] history = new Trainer<BertClassifierRow>("BertClassifier", sc, TrainingSettings.of(this),
                    listener).train(rows, slots, shipped, BertClassifierRow::key, theta);
                BertClassificationModel model = copyValues(new BertClassificationModel(uid,
                    new BertEncoder(network.encoderWeights(theta)), network.classifierWeight(theta),
                    network.classifierBias(theta), network.settings().pooling()), new ParamMap());
                return model.withTrainingSummary(dataset, history);
            } finally {
                shipped.destroy();
            }
        }
    }

    /** The head in {@code initialWeightsPath}, {@code {weight K×E, bias K}}, or null when none is given. */
    private float[][] initialHead(int hidden, Configuration conf) {
        String path = getInitialWeightsPath();
        if (path.isEmpty()) {
            return null;
        }
        SafeTensors file = ClassifierFiles.read(path, conf, "initialWeightsPath");
        try {
            return BertModelIO.readHead(file, hidden);
        } catch (IOException e) {
            throw new IllegalArgumentException("initialWeightsPath: " + e.getMessage(), e);
        }
    }

    /** Hugging Face's head initialisation: weight ~ N(0, 0.02²) drawn from the seed, bias 0. */
    static float[][] seededHead(int classes, int hidden, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        float[] weight = new float[classes * hidden];
        for (int i = 0; i < weight.length; i++) {
            weight[i] = (float) (random.nextGaussian() * HEAD_INIT_STD);
        }
        return new float[][] {weight, new float[classes]};
    }

    @Override
    public BertClassifier copy(ParamMap extra) {
        BertClassifier copy = defaultCopy(extra);
        return copy.setEncoder(encoderModel).setTrainingListener(listener);
    }

    @Override
    public MLWriter write() {
        return EncoderSource.writer(this);
    }

    /** @return the reader of the params (and the encoder saved beside them, if any) */
    public static MLReader<BertClassifier> read() {
        return EncoderSource.reader();
    }

    /**
     * Loads an estimator saved with {@code write().save(path)}.
     *
     * @param path the directory it was saved to
     * @return the estimator
     */
    public static BertClassifier load(String path) {
        return read().load(path);
    }
}

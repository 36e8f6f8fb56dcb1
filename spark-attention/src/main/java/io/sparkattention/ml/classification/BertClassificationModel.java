package io.sparkattention.ml.classification;

import io.sparkattention.ml.Shipped;
import io.sparkattention.bert.BertClassifierEvaluator;
import io.sparkattention.bert.BertClassifierNetwork;
import io.sparkattention.bert.BertClassifierSettings;
import io.sparkattention.bert.BertEncoder;
import io.sparkattention.ml.ContextBroadcast;
import io.sparkattention.ml.feature.BertEncoderModel;
import io.sparkattention.ml.StageUid;
import io.sparkattention.nn.Pooling;
import io.sparkattention.nn.Softmax;
import io.sparkattention.rows.TokenIds;
import org.apache.spark.SparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.ml.classification.ProbabilisticClassificationModel;
import org.apache.spark.ml.linalg.DenseVector;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.VectorUDT;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.Identifiable$;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.ml.util.MLWritable;
import org.apache.spark.ml.util.MLWriter;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

import java.util.Objects;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.udf;

/**
 * A fine-tuned BERT classifier (see {@link BertClassifier}): the encoder and the linear head on
 * its pooled output. {@code transform} adds MLlib's three columns — rawPrediction (the K
 * logits), probability (their softmax) and prediction — from the token ids column, so MLlib's
 * evaluators, CrossValidator and TrainValidationSplit use it unchanged. A batch DataFrame's rows
 * are encoded per task in the encoder stage's groups ({@link EncoderBatches}: one stacked forward
 * per group), a streaming one's one at a time; either way a row gets the bits it gets alone.
 *
 * <ul>
 *   <li>{@link #encoderModel()}: the fine-tuned encoder as a {@link BertEncoderModel}, to embed;</li>
 *   <li>{@link #exportPyTorch}: every tensor in Hugging Face {@code BertModel} names plus
 *       {@code classifier.weight} and {@code classifier.bias};</li>
 *   <li>{@code write().save(path)} / {@link #load}: params metadata plus that file under
 *       {@code path/data} ({@link BertModelIO}); alone or inside a {@code PipelineModel}.</li>
 * </ul>
 * {@code pooling} belongs to the trained network and cannot be changed on the model.
 */
public final class BertClassificationModel
    extends ProbabilisticClassificationModel<int[], BertClassificationModel>
    implements BertClassifierParams<BertClassificationModel>, MLWritable {

    private static final long serialVersionUID = 1L;

    /** The {@code "format"} entry of {@link #exportPyTorch}'s {@code __metadata__}. */
    public static final String EXPORT_FORMAT = "BertModel state_dict with a classifier head";

    private final String uid;
    /**
     * The weights stay on the driver (transient): MLlib's prediction UDFs capture the model, and
     * the executors get the network through one broadcast ({@link #shipped}), not in every task.
     */
    private final transient BertEncoder encoder;
    private final transient float[] classifierWeight;
    private final transient float[] classifierBias;
    private final int classes;
    private final Pooling poolingMode;
    private BertClassifierParamSet params;
    private transient BertClassifierSummary summary;
    /** The head-only network on the executors, one broadcast per model and SparkContext (see AttentionClassificationModel). */
    private transient ContextBroadcast<Shipped<BertClassifierNetwork>> shipped;
    /** The head-only network, built once: it holds the frozen encoder's packed weights. */
    private transient volatile BertClassifierNetwork network;
    /** {@link #predictRaw}'s evaluators, one per thread (an evaluator is not thread-safe). */
    private transient ThreadLocal<BertClassifierEvaluator> evaluators;

    /** An empty model, without weights, for Spark Connect ML's service loader; use {@link #load} or fit. */
    public BertClassificationModel() {
        this(Identifiable$.MODULE$.randomUID("bertClassificationModel"), null, null, null, Pooling.MEAN);
    }

    BertClassificationModel(String uid, BertEncoder encoder, float[] classifierWeight, float[] classifierBias,
                            Pooling pooling) {
        this(StageUid.park(uid), encoder, classifierWeight, classifierBias, pooling);
    }

    /** Runs after {@link StageUid#park} parked the uid for MLlib's constructors. */
    private BertClassificationModel(StageUid uid, BertEncoder encoder, float[] classifierWeight,
                                    float[] classifierBias, Pooling pooling) {
        this.uid = uid.take();
        this.encoder = encoder;
        this.classifierWeight = classifierWeight;
        this.classifierBias = classifierBias;
        this.classes = classifierBias == null ? 0 : classifierBias.length;
        this.poolingMode = pooling;
        params = new BertClassifierParamSet(this);
        setDefault(featuresCol(), BertClassifier.DEFAULT_IDS_COL);
        set(pooling(), PoolingNames.bertName(pooling));
        if (encoder != null) {
            network();
        }
    }

    /** The trained network's pooling (what {@code pooling} names, in either spelling). */
    Pooling poolingMode() {
        return poolingMode;
    }

    /**
     * A model from a file as {@link #exportPyTorch} writes it (the encoder's tensors under
     * {@code prefix}, {@code classifier.weight} and {@code classifier.bias} without), on any Hadoop
     * file system.
     *
     * @param path     the file
     * @param prefix   the encoder's name prefix, or {@code ""}
     * @param numHeads the encoder's heads, or 0 to take them from the file's metadata
     * @param pooling  {@code mean} or {@code cls}, or null to take it from the file's metadata
     * @return the model
     * @throws IllegalArgumentException naming the file and the tensor or metadata entry that is
     *     missing or does not fit
     */
    public static BertClassificationModel fromSafeTensors(String path, String prefix, int numHeads, String pooling) {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(prefix, "prefix");
        if (numHeads < 0) {
            throw new IllegalArgumentException("numHeads must be >= 0 (0: from the file), got " + numHeads);
        }
        return BertModelIO.fromSafeTensors(Identifiable$.MODULE$.randomUID("bertClassificationModel"), path, prefix,
            numHeads, pooling, null);
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
     * The fine-tuned encoder.
     *
     * @return the encoder (shared, not copied)
     * @throws IllegalStateException for an empty model
     */
    public BertEncoder encoder() {
        if (encoder == null) {
            throw new IllegalStateException("BertClassificationModel " + uid + " has no weights; build it with "
                + "BertClassifier.fit or BertClassificationModel.load");
        }
        return encoder;
    }

    /** @return the head's weight, K×E row-major (a copy) */
    public float[] classifierWeight() {
        encoder();
        return classifierWeight.clone();
    }

    /** @return the head's bias, K values (a copy) */
    public float[] classifierBias() {
        encoder();
        return classifierBias.clone();
    }

    /**
     * The fine-tuned encoder as a stage that embeds token ids ({@code embedding}, mean pooling and
     * L2 normalisation by default; see {@link BertEncoderModel}), reading this model's ids column.
     *
     * @return a new stage sharing the encoder
     */
    public BertEncoderModel encoderModel() {
        return new BertEncoderModel(encoder()).setInputCol(getFeaturesCol());
    }

    /**
     * The network that computes this model's logits: the head alone trains, so its vector is the
     * head. Built once per model, so the frozen encoder's weights are packed once.
     */
    BertClassifierNetwork network() {
        BertClassifierNetwork n = network;
        if (n == null) {
            n = new BertClassifierNetwork(encoder().weights(), classifierWeight, classifierBias,
                new BertClassifierSettings(0, poolingMode, 0.0));
            network = n;
        }
        return n;
    }

    /** {@link #predictRaw}'s evaluators of {@link #network()} at its head, one per thread. */
    private synchronized ThreadLocal<BertClassifierEvaluator> evaluators() {
        if (evaluators == null) {
            evaluators = ThreadLocal.withInitial(() -> network().bind(network().initialParameters()));
        }
        return evaluators;
    }

    @Override
    public int numClasses() {
        return classes;
    }

    @Override
    public int numFeatures() {
        return -1;
    }

    /** Attaches the training summary: the figures on the training set and the objective history. */
    BertClassificationModel withTrainingSummary(Dataset<?> training, double[] objectiveHistory) {
        summary = LabelledPredictions.summarize(this, training, getWeightCol(),
            (predictions, predictionCol, labelCol, weightCol) -> new BertClassifierSummary(predictions,
                predictionCol, labelCol, weightCol, objectiveHistory));
        return this;
    }

    /** @return whether the model was fitted in this session (loaded models have no summary) */
    public boolean hasSummary() {
        return summary != null;
    }

    /**
     * The training summary: the training set's figures and the objective history.
     *
     * @return the summary
     * @throws IllegalStateException for a loaded model, which has none (as in MLlib)
     */
    public BertClassifierSummary summary() {
        if (summary == null) {
            throw new IllegalStateException("BertClassificationModel " + uid + " has no training summary: it was "
                + "loaded, not fitted");
        }
        return summary;
    }

    /**
     * The model's figures on a labelled set, as MLlib's {@code LogisticRegressionModel.evaluate}.
     * Rows weigh their {@code weightCol} value when the set has that column, else 1.
     *
     * @param dataset a set with the ids column and {@code labelCol}
     * @return the summary; its figures are computed on first use
     */
    public AttentionClassificationSummary evaluate(Dataset<?> dataset) {
        return LabelledPredictions.summarize(this, dataset, getWeightCol(), AttentionClassificationSummary::new);
    }

    /**
     * Writes every tensor — the encoder's under Hugging Face {@code BertModel} names (no prefix),
     * {@code classifier.weight} [K, E] and {@code classifier.bias} [K] — as safetensors, with the
     * heads, LayerNorm ε and pooling in its {@code __metadata__}.
     *
     * @param path a new file on any Hadoop file system; an existing file is not replaced
     */
    public void exportPyTorch(String path) {
        BertModelIO.exportPyTorch(this, path, null);
    }

    @Override
    public StructType transformSchema(StructType schema) {
        encoder();
        if (PoolingNames.parse(getPooling(), BertClassifierParamSet.POOLINGS) != poolingMode) {
            throw new IllegalArgumentException("pooling belongs to the trained network and cannot be changed on the "
                + "model");
        }
        return ClassifierSchema.withNumClasses(BertClassifier.validate(this, schema, false), this, numClasses());
    }

    @Override
    public Dataset<Row> transform(Dataset<?> dataset) {
        StructType out = transformSchema(dataset.schema(), true);
        String ids = getFeaturesCol();
        boolean longIds = ((ArrayType) dataset.schema().apply(ids).dataType()).elementType()
            .equals(DataTypes.LongType);
        String raw = getRawPredictionCol().isEmpty() ? "_" + uid + "_rawPrediction" : getRawPredictionCol();
        Dataset<Row> df = ClassifyPartition.withLogits(dataset.toDF(),
            shipped(dataset.sparkSession().sparkContext()), ids, longIds, raw);
        if (!getProbabilityCol().isEmpty()) {
            UDF1<Vector, Vector> probability = v -> v == null ? null : raw2probability(v);
            df = df.withColumn(getProbabilityCol(), udf(probability, new VectorUDT()).apply(col(raw))
                .as(getProbabilityCol(), out.apply(getProbabilityCol()).metadata()));
        }
        if (!getPredictionCol().isEmpty()) {
            boolean fromRaw = getProbabilityCol().isEmpty();
            UDF1<Vector, Double> prediction = v -> v == null ? null
                : fromRaw ? raw2prediction(v) : probability2prediction(v);
            Column input = col(fromRaw ? raw : getProbabilityCol());
            df = df.withColumn(getPredictionCol(), udf(prediction, DataTypes.DoubleType).apply(input)
                .as(getPredictionCol(), out.apply(getPredictionCol()).metadata()));
        }
        return getRawPredictionCol().isEmpty() ? df.drop(raw) : df;
    }

    private Broadcast<Shipped<BertClassifierNetwork>> shipped(SparkContext sc) {
        return shipped().get(sc);
    }

    private synchronized ContextBroadcast<Shipped<BertClassifierNetwork>> shipped() {
        if (shipped == null) {
            shipped = new ContextBroadcast<>(() -> Shipped.of(network()));
        }
        return shipped;
    }

    /**
     * The logits of one row of token ids ([CLS] … [SEP] in place).
     *
     * @param ids the row's token ids
     * @return the K logits
     */
    @Override
    public Vector predictRaw(int[] ids) {
        Objects.requireNonNull(ids, "ids");
        BertClassifierNetwork n = network();
        new TokenIds(getFeaturesCol(), false, true, n.config().vocabSize()).check(ids, 1, n.config().maxPositions());
        float[] z = new float[numClasses()];
        evaluators().get().logits(ids, null, z);
        double[] raw = new double[z.length];
        for (int i = 0; i < raw.length; i++) {
            raw[i] = z[i];
        }
        return Vectors.dense(raw);
    }

    /** Softmax in place, with the maximum subtracted first. */
    @Override
    public Vector raw2probabilityInPlace(Vector rawPrediction) {
        Softmax.softmaxInPlace(((DenseVector) rawPrediction).values());
        return rawPrediction;
    }

    /** Internal to MLlib's training summaries (see AttentionClassificationModel). */
    @Override
    @SuppressWarnings({"rawtypes", "unchecked"})
    public scala.Tuple3 findSummaryModel() {
        return new scala.Tuple3(this, getPredictionCol(), getProbabilityCol());
    }

    @Override
    public BertClassificationModel copy(ParamMap extra) {
        BertClassificationModel copied = copyValues(new BertClassificationModel(uid, encoder, classifierWeight,
            classifierBias, poolingMode), extra);
        copied.summary = summary;
        copied.shipped = shipped();
        copied.network = network;
        return copied.setParent(parent());
    }

    @Override
    public MLWriter write() {
        return BertModelIO.writer(this);
    }

    /** @return the reader of params metadata and the safetensors file */
    public static MLReader<BertClassificationModel> read() {
        return BertModelIO.reader();
    }

    /**
     * Loads a model saved with {@code write().save(path)}.
     *
     * @param path the directory the model was saved to
     * @return the model, with its uid, params and weights (and no training summary)
     */
    public static BertClassificationModel load(String path) {
        return read().load(path);
    }

    @Override
    public String toString() {
        return "BertClassificationModel: uid=" + uid + (encoder == null ? ", no weights"
            : ", " + encoder.config() + ", K=" + numClasses() + ", pooling=" + getPooling());
    }
}

package io.sparkattention.ml.classification;

import io.sparkattention.exec.RowFunctions;
import io.sparkattention.ml.ContextBroadcast;
import io.sparkattention.ml.MultiHeadAttentionModel;
import io.sparkattention.ml.StageUid;
import io.sparkattention.nn.MultiHeadAttentionWeights;
import io.sparkattention.nn.Softmax;
import io.sparkattention.rows.SequenceDecoder;
import org.apache.spark.SparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.ml.classification.ProbabilisticClassificationModel;
import org.apache.spark.ml.linalg.DenseVector;
import org.apache.spark.ml.linalg.Matrix;
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
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.udf;

/**
 * A trained attention classifier (see {@link AttentionClassifier} for the network): its shape
 * and flat parameter vector. {@code transform} adds MLlib's three columns — rawPrediction (the
 * K logits), probability (their softmax) and prediction — so MLlib's evaluators, CrossValidator
 * and TrainValidationSplit use it unchanged; rows are ragged and may carry a key length.
 *
 * <ul>
 *   <li>{@link #attention()}: the trained attention layer as a {@link MultiHeadAttentionModel};</li>
 *   <li>{@link #exportPyTorch} / {@link #fromSafeTensors}: the reference module's state_dict;</li>
 *   <li>{@code write().save(path)} / {@link #load}: params metadata plus the state_dict under
 *       {@code path/data} ({@link ClassifierModelIO}); alone or inside a {@code PipelineModel}.</li>
 * </ul>
 * The network's shape params ({@code numHeads}, {@code causal}, {@code residual},
 * {@code pooling}) are set from the shape and cannot be changed on the model.
 */
public final class AttentionClassificationModel
    extends ProbabilisticClassificationModel<Matrix, AttentionClassificationModel>
    implements AttentionClassifierParams<AttentionClassificationModel>, MLWritable {

    private static final long serialVersionUID = 1L;

    private static final Logger LOG = LoggerFactory.getLogger(AttentionClassificationModel.class);

    private final String uid;
    private final ClassifierArchitecture shape;
    private final float[] parameters;
    private ClassifierParamSet params;
    /** Driver-side: not shipped with the model's row functions. */
    private transient AttentionClassifierSummary summary;
    /**
     * The parameters as executors read them: one broadcast per model and SparkContext, shared by
     * every DataFrame this model's {@code transform} returns (a new one per call would keep a copy
     * per call on every executor until each DataFrame is collected). A transform's DataFrame is
     * lazy and may run any number of times, so no job marks a point after which the broadcast is
     * unused: as for MLlib's models' broadcasts, Spark's ContextCleaner destroys it (on the driver
     * and the executors) once the model and those DataFrames are unreachable.
     */
    private transient ContextBroadcast<float[]> shipped;

    /**
     * An empty model, without weights: what Spark Connect ML's service loader instantiates to list
     * the stage. {@link #transform} refuses it; use {@link #load}, {@link #fromSafeTensors} or
     * {@link AttentionClassifier#fit}.
     */
    public AttentionClassificationModel() {
        this(Identifiable$.MODULE$.randomUID("attentionClassificationModel"), null, null);
    }

    AttentionClassificationModel(String uid, ClassifierArchitecture shape, float[] parameters) {
        this(StageUid.park(uid), shape, parameters);
    }

    /** Runs after {@link StageUid#park} parked the uid for MLlib's constructors. */
    private AttentionClassificationModel(StageUid uid, ClassifierArchitecture shape, float[] parameters) {
        this.uid = uid.take();
        if (shape != null && parameters.length != shape.network().parameterCount()) {
            throw new IllegalArgumentException("the " + shape + " network has " + shape.network().parameterCount()
                + " parameters, got " + parameters.length);
        }
        this.shape = shape;
        this.parameters = parameters;
        params = new ClassifierParamSet(this);
        if (shape != null) {
            set(numHeads(), shape.numHeads);
            set(causal(), shape.causal);
            set(residual(), shape.residual);
            set(pooling(), shape.poolingName());
        }
    }

    /**
     * Builds a model from the reference module's state_dict saved as safetensors
     * ({@code safetensors.torch.save_file(module.state_dict(), path)}), on any Hadoop file system;
     * E and K come from the tensors' shapes.
     *
     * @param path     the file
     * @param numHeads the attention layer's heads (PyTorch does not store them); must divide E
     * @param causal   whether the module masks later tokens
     * @param residual whether it pools {@code x + attention(x)}
     * @param pooling  {@code mean}, {@code first} or {@code last}
     * @return the model
     * @throws IllegalArgumentException naming the file and the tensor that is missing or mis-shaped,
     *     or when {@code numHeads} does not divide E
     */
    public static AttentionClassificationModel fromSafeTensors(String path, int numHeads, boolean causal,
                                                               boolean residual, String pooling) {
        return ClassifierModelIO.fromSafeTensors(path, numHeads, causal, residual, pooling, null);
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

    ClassifierArchitecture shape() {
        return requireWeights().shape;
    }

    /**
     * The flat parameter vector, in the network's state_dict order.
     *
     * @return a copy
     */
    public float[] parameters() {
        return requireWeights().parameters.clone();
    }

    float[] sharedParameters() {
        return requireWeights().parameters;
    }

    @Override
    public int numClasses() {
        return shape == null ? 0 : shape.numClasses;
    }

    @Override
    public int numFeatures() {
        return shape == null ? -1 : shape.embedDim;
    }

    /** Attaches the training summary: the figures on the training set and the objective history. */
    AttentionClassificationModel withTrainingSummary(Dataset<?> training, double[] objectiveHistory) {
        summary = LabelledPredictions.summarize(this, training, getWeightCol(),
            (predictions, predictionCol, labelCol, weightCol) -> new AttentionClassifierSummary(predictions,
                predictionCol, labelCol, weightCol, objectiveHistory));
        return this;
    }

    /** @return whether the model was fitted in this session (loaded models have no summary) */
    public boolean hasSummary() {
        return summary != null;
    }

    /**
     * The training summary: the training set's predictions and figures (accuracy, per-label and
     * weighted precision, recall and F-measure), the objective history and the step count.
     *
     * @return the summary
     * @throws IllegalStateException for a loaded model, which has none (as in MLlib)
     */
    public AttentionClassifierSummary summary() {
        if (summary == null) {
            throw new IllegalStateException("AttentionClassificationModel " + uid + " has no training summary: it was "
                + "loaded, not fitted");
        }
        return summary;
    }

    /**
     * The model's figures on a labelled set, as MLlib's {@code LogisticRegressionModel.evaluate}:
     * the training summary's, without the objective history. Rows weigh their {@code weightCol}
     * value when the set has that column, else 1.
     *
     * @param dataset a set with the features column (and key length column, if set) and {@code labelCol}
     * @return the summary; its figures are computed on first use
     */
    public AttentionClassificationSummary evaluate(Dataset<?> dataset) {
        return LabelledPredictions.summarize(this, dataset, getWeightCol(), AttentionClassificationSummary::new);
    }

    /**
     * The trained attention layer, to apply, draw or save like any other; its {@code causal}
     * param is set as the classifier's.
     *
     * @return a new model sharing nothing with this one
     */
    public MultiHeadAttentionModel attention() {
        ClassifierArchitecture s = shape();
        MultiHeadAttentionWeights w = s.network().attentionWeights(parameters);
        return new MultiHeadAttentionModel(w).setCausal(s.causal).setQueryCol(getFeaturesCol());
    }

    /**
     * Writes the reference module's state_dict as safetensors, ready for
     * {@code module.load_state_dict(safetensors.torch.load_file(path))}. The architecture
     * (heads, causal, residual, pooling) is recorded in the file's {@code __metadata__}.
     *
     * @param path a new file on any Hadoop file system; an existing file is not replaced
     */
    public void exportPyTorch(String path) {
        ClassifierModelIO.exportPyTorch(this, path, null);
    }

    @Override
    public StructType transformSchema(StructType schema) {
        requireWeights();
        checkShapeParams();
        return ClassifierSchema.withNumClasses(ClassifierSchema.validate(this, schema, false, shape.embedDim), this,
            shape.numClasses);
    }

    private void checkShapeParams() {
        if (getNumHeads() != shape.numHeads || getCausal() != shape.causal || getResidual() != shape.residual
            || !getPooling().equals(shape.poolingName())) {
            throw new IllegalArgumentException("numHeads, causal, residual and pooling belong to the trained network ("
                + shape + ") and cannot be changed on the model");
        }
    }

    private AttentionClassificationModel requireWeights() {
        if (shape == null) {
            throw new IllegalStateException("AttentionClassificationModel " + uid + " has no weights; build it with "
                + "AttentionClassifier.fit, AttentionClassificationModel.load or fromSafeTensors");
        }
        return this;
    }

    @Override
    public Dataset<Row> transform(Dataset<?> dataset) {
        StructType out = transformSchema(dataset.schema(), true);
        LOG.info("AttentionClassificationModel transform: {}", ClassifierSchema.keyLengthNote(this, dataset.schema()));
        Broadcast<float[]> shipped = shippedParameters(dataset.sparkSession().sparkContext());
        SequenceDecoder type = ClassifierSchema.features(dataset.schema(), getFeaturesCol(), shape.embedDim);
        List<Column> inputs = new ArrayList<>();
        inputs.add(col(getFeaturesCol()));
        if (!getKeyLengthCol().isEmpty()) {
            inputs.add(col(getKeyLengthCol()).cast(DataTypes.IntegerType));
        }
        ClassifierRowFunction logits = new ClassifierRowFunction(shape, shipped, type, getFeaturesCol(),
            getKeyLengthCol());
        String raw = getRawPredictionCol().isEmpty() ? "_" + uid + "_rawPrediction" : getRawPredictionCol();
        Dataset<Row> df = dataset.toDF();
        df = df.withColumn(raw, RowFunctions.column("attention_classifier", logits, new VectorUDT(), null, inputs));
        if (!getProbabilityCol().isEmpty()) {
            UDF1<Vector, Vector> probability = this::raw2probability;
            df = df.withColumn(getProbabilityCol(), udf(probability, new VectorUDT()).apply(col(raw))
                .as(getProbabilityCol(), out.apply(getProbabilityCol()).metadata()));
        }
        if (!getPredictionCol().isEmpty()) {
            UDF1<Vector, Double> prediction = getProbabilityCol().isEmpty() ? this::raw2prediction
                : this::probability2prediction;
            Column input = col(getProbabilityCol().isEmpty() ? raw : getProbabilityCol());
            df = df.withColumn(getPredictionCol(), udf(prediction, DataTypes.DoubleType).apply(input)
                .as(getPredictionCol(), out.apply(getPredictionCol()).metadata()));
        }
        return getRawPredictionCol().isEmpty() ? df.drop(raw) : df;
    }

    /** This model's parameters broadcast to {@code sc}, made on first use there; shared with its copies. */
    Broadcast<float[]> shippedParameters(SparkContext sc) {
        return shipped().get(sc);
    }

    private synchronized ContextBroadcast<float[]> shipped() {
        if (shipped == null) {
            shipped = new ContextBroadcast<>(() -> parameters);
        }
        return shipped;
    }

    /**
     * The logits of one sequence (every token valid).
     *
     * @param features L×E
     * @return the K logits
     */
    @Override
    public Vector predictRaw(Matrix features) {
        Objects.requireNonNull(features, "features");
        ClassifierArchitecture s = shape();
        s.checkTokens(getFeaturesCol(), features.numRows(), features.numCols());
        float[] x = new float[features.numRows() * s.embedDim];
        for (int i = 0; i < features.numRows(); i++) {
            for (int j = 0; j < s.embedDim; j++) {
                x[i * s.embedDim + j] = (float) features.apply(i, j);
            }
        }
        float[] z = new float[s.numClasses];
        s.network().bind(parameters).logits(x, features.numRows(), z);
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

    /**
     * Internal to MLlib's training summaries (which this model does not use): the model and its
     * prediction and probability columns. Declared with a raw type because Java sees the two
     * covariant Scala overrides it replaces as a clash.
     */
    @Override
    @SuppressWarnings({"rawtypes", "unchecked"})
    public scala.Tuple3 findSummaryModel() {
        return new scala.Tuple3(this, getPredictionCol(), getProbabilityCol());
    }

    @Override
    public AttentionClassificationModel copy(ParamMap extra) {
        AttentionClassificationModel copied = copyValues(new AttentionClassificationModel(uid, shape, parameters),
            extra);
        copied.summary = summary;
        copied.shipped = shipped();
        return copied.setParent(parent());
    }

    @Override
    public MLWriter write() {
        return ClassifierModelIO.writer(this);
    }

    /**
     * Reader for {@link #load}.
     *
     * @return the reader of params metadata and the safetensors state_dict
     */
    public static MLReader<AttentionClassificationModel> read() {
        return ClassifierModelIO.reader();
    }

    /**
     * Loads a model saved with {@code write().save(path)}.
     *
     * @param path the directory the model was saved to
     * @return the model, with its uid, params and weights (and no training summary)
     */
    public static AttentionClassificationModel load(String path) {
        return read().load(path);
    }

    @Override
    public String toString() {
        return "AttentionClassificationModel: uid=" + uid + (shape == null ? ", no weights" : ", " + shape);
    }
}

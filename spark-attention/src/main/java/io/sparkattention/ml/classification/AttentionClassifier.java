package io.sparkattention.ml.classification;

import io.sparkattention.io.ClassifierStateDict;
import io.sparkattention.io.SafeTensors;
import io.sparkattention.ml.HadoopSafeTensors;
import io.sparkattention.ml.StageUid;
import io.sparkattention.nn.AttentionClassifierNetwork;
import io.sparkattention.nn.Pooling;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.ml.attribute.Attribute;
import org.apache.spark.ml.attribute.Attribute$;
import org.apache.spark.ml.attribute.BinaryAttribute;
import org.apache.spark.ml.attribute.NominalAttribute;
import org.apache.spark.ml.classification.ProbabilisticClassifier;
import org.apache.spark.ml.linalg.Matrix;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.DefaultParamsReader;
import org.apache.spark.ml.util.DefaultParamsWritable;
import org.apache.spark.ml.util.Identifiable$;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.types.StructType;

import java.io.IOException;
import java.io.UncheckedIOException;

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
 * class index in {@code labelCol}, an optional row weight and an optional valid-token count. K
 * comes from the label column's metadata ({@code NominalAttribute}), else from the initial
 * weights, else from the largest label + 1.
 *
 * <p>{@code fit} validates everything first — the schema, every row (a label that is not an
 * integer in [0, K), a NaN or infinite feature, a bad weight or key length), {@code numHeads}
 * against E, an empty set, the initial weights' tensors — and fails naming the column, row or
 * tensor before any step. Then each step is one Spark job (see {@link ClassifierTrainer}).
 *
 * <pre>{@code
 * AttentionClassificationModel model = new AttentionClassifier()
 *     .setFeaturesCol("tokens").setNumHeads(4).setMaxIter(200).setStepSize(1e-3).fit(train);
 * double[] history = model.summary().objectiveHistory();
 * model.exportPyTorch("/models/cls.safetensors");
 * }</pre>
 */
public final class AttentionClassifier
    extends ProbabilisticClassifier<Matrix, AttentionClassifier, AttentionClassificationModel>
    implements AttentionClassifierParams<AttentionClassifier>, DefaultParamsWritable {

    private static final long serialVersionUID = 1L;

    private final String uid;
    private ClassifierParamSet params;
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
        this(StageUid.pending(uid), true);
    }

    /** Runs after {@link StageUid#pending} parked the uid for MLlib's constructors; {@code pending} only marks it. */
    private AttentionClassifier(String uid, boolean pending) {
        this.uid = StageUid.taken(uid);
        params = new ClassifierParamSet(this);
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
     * Reports the full-batch loss at every step of later fits (see {@link TrainingListener}).
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
        int declaredClasses = declaredClasses(dataset.schema());
        try (TrainingData data = TrainingData.decode(dataset, getFeaturesCol(), getLabelCol(), getWeightCol(),
            getKeyLengthCol())) {
            int embedDim = data.embedDim();
            if (embedDim % getNumHeads() != 0) {
                throw new IllegalArgumentException("numHeads (" + getNumHeads() + ") must divide the embedding width "
                    + "E = " + embedDim + " of column " + getFeaturesCol());
            }
            JavaSparkContext sc = JavaSparkContext.fromSparkContext(dataset.sparkSession().sparkContext());
            InitialWeights initial = getInitialWeightsPath().isEmpty() ? null
                : InitialWeights.read(getInitialWeightsPath(), embedDim, declaredClasses, sc.hadoopConfiguration());
            int numClasses = declaredClasses > 0 ? declaredClasses
                : initial != null ? initial.numClasses : Math.max(2, data.profile.maxLabel + 1);
            if (data.profile.maxLabel >= numClasses) {
                throw new IllegalArgumentException("row " + data.profile.maxLabelRow + ": column " + getLabelCol()
                    + " is " + data.profile.maxLabel + ", outside the " + numClasses + " classes [0, " + numClasses
                    + ") of " + classSource(declaredClasses));
            }
            ClassifierArchitecture shape = new ClassifierArchitecture(embedDim, getNumHeads(), numClasses, getCausal(),
                getResidual(), Pooling.parse(getPooling()));
            AttentionClassifierNetwork network = shape.network();
            float[] theta = initial != null ? initial.parameters(network) : network.initialParameters(getSeed());
            ClassifierTrainer trainer = new ClassifierTrainer(sc, getSolver(), getMaxIter(), getStepSize(),
                getWeightDecay(), getMiniBatchFraction(), getTol(), getSeed(), listener);
            AttentionClassifierSummary summary = trainer.train(data, shape, theta);
            AttentionClassificationModel model = new AttentionClassificationModel(uid, shape, theta);
            return model.withSummary(summary);
        }
    }

    private String classSource(int declaredClasses) {
        if (declaredClasses > 0) {
            return "the label column's metadata";
        }
        return "the initial weights " + getInitialWeightsPath() + " (classifier.weight)";
    }

    /** The class count the label column's ML attribute declares, or -1. */
    private int declaredClasses(StructType schema) {
        Attribute attribute = Attribute$.MODULE$.fromStructField(schema.apply(getLabelCol()));
        if (attribute instanceof BinaryAttribute) {
            return 2;
        }
        if (attribute instanceof NominalAttribute && ((NominalAttribute) attribute).getNumValues().isDefined()) {
            return (Integer) ((NominalAttribute) attribute).getNumValues().get();
        }
        return -1;
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
        return new DefaultParamsReader<>();
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

    /** A state_dict to start from, checked against the data's E and the declared class count. */
    private static final class InitialWeights {
        final SafeTensors file;
        final int numClasses;

        private InitialWeights(SafeTensors file, int numClasses) {
            this.file = file;
            this.numClasses = numClasses;
        }

        static InitialWeights read(String path, int embedDim, int declaredClasses,
                                   Configuration conf) {
            try {
                SafeTensors file = HadoopSafeTensors.read(path, conf);
                int[] ek = ClassifierStateDict.dimensions(file);
                if (ek[0] != embedDim) {
                    throw new IllegalArgumentException(path + ": tensor '" + ClassifierStateDict.CLASSIFIER_WEIGHT
                        + "' is for embed_dim " + ek[0] + ", but the features have E = " + embedDim);
                }
                if (declaredClasses > 0 && ek[1] != declaredClasses) {
                    throw new IllegalArgumentException(path + ": tensor '" + ClassifierStateDict.CLASSIFIER_WEIGHT
                        + "' has " + ek[1] + " classes, but the label column's metadata declares " + declaredClasses);
                }
                return new InitialWeights(file, ek[1]);
            } catch (IOException e) {
                throw new IllegalArgumentException("initialWeightsPath: " + e.getMessage(), e);
            }
        }

        float[] parameters(AttentionClassifierNetwork network) {
            try {
                return ClassifierStateDict.load(file, network.parameters(), network.parameterCount());
            } catch (IOException e) {
                throw new IllegalArgumentException("initialWeightsPath: " + e.getMessage(), e);
            }
        }
    }
}

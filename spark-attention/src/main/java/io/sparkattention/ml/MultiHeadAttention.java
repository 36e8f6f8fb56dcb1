package io.sparkattention.ml;

import io.sparkattention.nn.MultiHeadAttentionInit;
import io.sparkattention.nn.MultiHeadAttentionWeights;
import io.sparkattention.sparkinternal.ParamsMetadata;
import org.apache.spark.ml.Estimator;
import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.LongParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.DefaultParamsWritable;
import org.apache.spark.ml.util.Identifiable$;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.types.StructType;

/**
 * Builds a {@link MultiHeadAttentionModel}: PyTorch's {@code nn.MultiheadAttention} with
 * {@code embed_dim}, {@code kdim} and {@code vdim} taken from the data (the widths of the query,
 * key and value columns in the first row that has them) and weights that are either
 * <ul>
 *   <li>loaded from {@code initialWeightsPath}, a PyTorch state_dict saved as safetensors
 *       ({@code weightsPrefix} selects the module inside a larger state_dict), and checked against
 *       the data's widths; or</li>
 *   <li>initialised as PyTorch does ({@link MultiHeadAttentionInit}: xavier-uniform input
 *       projections, kaiming-uniform output projection, zero biases), deterministically from
 *       {@code seed}, with biases when {@code bias} is true.</li>
 * </ul>
 * No training happens: attention layers are trained elsewhere (PyTorch) and applied here.
 * Dropout, {@code add_bias_kv} and {@code add_zero_attn} have no counterpart (inference only).
 *
 * <pre>{@code
 * MultiHeadAttentionModel model = new MultiHeadAttention()
 *     .setNumHeads(8).setInitialWeightsPath("/models/attn.safetensors").setWeightsPrefix("self_attn.")
 *     .fit(df);
 * }</pre>
 */
public final class MultiHeadAttention extends Estimator<MultiHeadAttentionModel>
    implements AttentionParams<MultiHeadAttention>, DefaultParamsWritable {

    private static final long serialVersionUID = 1L;

    private final String uid;
    private AttentionParamSet params;
    private Param<String> initialWeightsPath;
    private Param<String> weightsPrefix;
    private LongParam seed;
    private BooleanParam bias;

    /** An estimator with a random uid. */
    public MultiHeadAttention() {
        this(Identifiable$.MODULE$.randomUID("mha"));
    }

    /**
     * An estimator with the given uid (used by persistence and {@link #copy}).
     *
     * @param uid the stage's uid
     */
    public MultiHeadAttention(String uid) {
        this.uid = uid;
        init();
    }

    private void init() {
        params = new AttentionParamSet(this);
        initialWeightsPath = new Param<>(this, "initialWeightsPath",
            "safetensors file holding a PyTorch nn.MultiheadAttention state_dict to start from (any Hadoop file "
                + "system); empty: initialise as PyTorch does from seed");
        weightsPrefix = new Param<>(this, "weightsPrefix",
            "name prefix of the module inside the state_dict (e.g. self_attn.); empty: none");
        seed = new LongParam(this, "seed", "random seed of the PyTorch-style initialisation");
        bias = new BooleanParam(this, "bias",
            "initialised projections have biases (PyTorch's bias=True); loaded weights keep what the file has");
        setDefault(initialWeightsPath, "");
        setDefault(weightsPrefix, "");
        // MLlib's HasSeed default: the class name's hash, the same in every run.
        setDefault(seed, (long) MultiHeadAttention.class.getName().hashCode());
        setDefault(bias, true);
    }

    @Override
    public String uid() {
        return uid;
    }

    /** Internal: the stage's Param objects. */
    @Override
    public AttentionParamSet attentionParamSet() {
        return params;
    }

    /**
     * Safetensors file with a PyTorch {@code nn.MultiheadAttention} state_dict to load (default
     * empty: initialise from {@code seed}).
     *
     * @return the param
     */
    public Param<String> initialWeightsPath() {
        return initialWeightsPath;
    }

    /** @return the value of {@link #initialWeightsPath()} */
    public String getInitialWeightsPath() {
        return getOrDefault(initialWeightsPath);
    }

    /**
     * @param value a path on any Hadoop file system, or empty
     * @return this estimator
     */
    public MultiHeadAttention setInitialWeightsPath(String value) {
        set(initialWeightsPath, value);
        return this;
    }

    /**
     * Name prefix of the module inside the state_dict (default empty); a missing trailing dot is added.
     *
     * @return the param
     */
    public Param<String> weightsPrefix() {
        return weightsPrefix;
    }

    /** @return the value of {@link #weightsPrefix()} */
    public String getWeightsPrefix() {
        return getOrDefault(weightsPrefix);
    }

    /**
     * @param value a prefix such as {@code self_attn.}, or empty
     * @return this estimator
     */
    public MultiHeadAttention setWeightsPrefix(String value) {
        set(weightsPrefix, value);
        return this;
    }

    /**
     * Seed of the PyTorch-style initialisation (default: the class name's hash, as MLlib's {@code HasSeed}).
     *
     * @return the param
     */
    public LongParam seed() {
        return seed;
    }

    /** @return the value of {@link #seed()} */
    public long getSeed() {
        return (Long) getOrDefault(seed);
    }

    /**
     * @param value the seed
     * @return this estimator
     */
    public MultiHeadAttention setSeed(long value) {
        set(seed, value);
        return this;
    }

    /**
     * Whether initialised projections have biases (default true, as PyTorch's {@code bias=True}).
     *
     * @return the param
     */
    public BooleanParam bias() {
        return bias;
    }

    /** @return the value of {@link #bias()} */
    public boolean getBias() {
        return (Boolean) getOrDefault(bias);
    }

    /**
     * @param value true for biases (zero-initialised)
     * @return this estimator
     */
    public MultiHeadAttention setBias(boolean value) {
        set(bias, value);
        return this;
    }

    /**
     * Not offered: PyTorch's {@code nn.MultiheadAttention} has as many key/value heads as query
     * heads, so its weights have no grouped-query form. Grouped-query attention runs on projected
     * Q, K and V with {@link ScaledDotProductAttention#setNumKvHeads}.
     *
     * @param value 0 (key/value heads = {@code numHeads}), the only value accepted
     * @return this estimator
     * @throws IllegalArgumentException for any other value
     * @deprecated the estimator has no grouped-query form; the setter exists because every
     *     attention stage shares {@link AttentionParams}
     */
    @Deprecated
    @Override
    public MultiHeadAttention setNumKvHeads(int value) {
        if (value != 0) {
            throw new IllegalArgumentException("numKvHeads (" + value + "): MultiHeadAttention has no grouped-query "
                + "form (nn.MultiheadAttention weights have numHeads key/value heads); use "
                + "ScaledDotProductAttention.setNumKvHeads on projected Q, K, V");
        }
        set(numKvHeads(), value);
        return this;
    }

    /** A projecting layer whose widths come from the data (no weights yet). */
    private static final int[] UNKNOWN_WIDTHS = {-1, -1, -1};

    @Override
    public StructType transformSchema(StructType schema) {
        checkNoGroupedQuery(this);
        return StageSchema.transformSchema(this, schema, UNKNOWN_WIDTHS);
    }

    /** PyTorch's module has as many key/value heads as query heads. */
    static void checkNoGroupedQuery(AttentionParams<?> stage) {
        if (stage.effectiveNumKvHeads() != stage.getNumHeads()) {
            throw new IllegalArgumentException("numKvHeads (" + stage.getNumKvHeads() + ") must be 0 or numHeads ("
                + stage.getNumHeads() + "): nn.MultiheadAttention has no grouped-query form");
        }
    }

    /**
     * Resolves E, kdim and vdim from the data, then loads or initialises the weights.
     *
     * @throws IllegalArgumentException when a width cannot be resolved, {@code numHeads} does not
     *     divide E, or loaded weights do not match the data's widths (naming tensor and column)
     */
    @Override
    public MultiHeadAttentionModel fit(Dataset<?> dataset) {
        transformSchema(dataset.schema(), true);
        ModelDimensions data = ModelDimensions.resolve(dataset,
            StageSchema.columns(this, dataset.schema(), UNKNOWN_WIDTHS));
        MultiHeadAttentionWeights weights;
        if (getInitialWeightsPath().isEmpty()) {
            data.requireAll();
            data.checkHeads(getNumHeads());
            weights = MultiHeadAttentionInit.pytorchDefault(data.embedDim(), getNumHeads(), data.kdim(), data.vdim(),
                getBias(), getSeed());
        } else {
            weights = MultiHeadAttentionModel.loadStateDict(getInitialWeightsPath(), getNumHeads(), getWeightsPrefix(),
                dataset.sparkSession().sparkContext().hadoopConfiguration());
            data.checkMatches(weights, getInitialWeightsPath());
        }
        MultiHeadAttentionModel model = new MultiHeadAttentionModel(uid, weights).setParent(this);
        return copyValues(model, new ParamMap());
    }

    @Override
    public MultiHeadAttention copy(ParamMap extra) {
        return defaultCopy(extra);
    }

    /**
     * Reader for {@link #load}.
     *
     * @return MLlib's default params reader
     */
    public static MLReader<MultiHeadAttention> read() {
        return ParamsMetadata.reader();
    }

    /**
     * Loads an estimator saved with {@code write().save(path)}.
     *
     * @param path the directory it was saved to
     * @return the estimator
     */
    public static MultiHeadAttention load(String path) {
        return read().load(path);
    }
}

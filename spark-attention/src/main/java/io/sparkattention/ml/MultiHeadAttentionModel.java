package io.sparkattention.ml;

import io.sparkattention.exec.AttentionExecution;
import io.sparkattention.exec.Strategy;
import io.sparkattention.io.MultiHeadAttentionStateDict;
import io.sparkattention.io.SafeTensors;
import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.nn.MultiHeadAttentionLayer;
import io.sparkattention.nn.MultiHeadAttentionWeights;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.ml.Model;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.Identifiable$;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.ml.util.MLWritable;
import org.apache.spark.ml.util.MLWriter;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructType;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * PyTorch's {@code nn.MultiheadAttention} forward pass over DataFrame rows: input projections,
 * scaled dot-product attention over the heads (with the masks, causal and weights params of
 * {@link AttentionParams}), and the output projection. One row is one sequence: query L×E, key
 * S×kdim and value S×vdim (self-attention when the key and value columns are unset). Fitted by
 * {@link MultiHeadAttention}, or built straight from a PyTorch state_dict:
 *
 * <pre>{@code
 * MultiHeadAttentionModel mha = MultiHeadAttentionModel.fromSafeTensors("hdfs:///models/attn.safetensors", 8,
 *     "encoder.layers.0.self_attn.");
 * Dataset<Row> out = mha.setCausal(true).setWeightsCol("attn_weights").transform(df);
 * }</pre>
 *
 * <p>The weights reach executors by broadcast: once per executor, not with every task.
 * The number of heads belongs to the weights; {@code numHeads} is set from them, and
 * {@code numKvHeads} must stay 0 or equal to it (PyTorch's module has no grouped-query form).
 *
 * <h2>Persistence</h2>
 * {@code write().save(path)} stores the params as MLlib metadata under {@code path/metadata} (as
 * every MLlib stage does) and the weights under {@code path/data/weights.safetensors}: PyTorch's
 * state_dict names, F32, with the head count in the file's {@code __metadata__}. Why safetensors
 * through Hadoop's {@code FileSystem} rather than Parquet rows or Java serialisation:
 * <ul>
 *   <li>it streams: the writer emits each tensor in 1 MB chunks and the reader reads one tensor at
 *       a time with positioned reads, so a model of any size (100M parameters and more) saves and
 *       loads without one giant byte array, without boxing floats into rows, and without a job;</li>
 *   <li>it works on every Hadoop file system (local, HDFS, S3A, ABFS), like MLlib's own writers;</li>
 *   <li>the saved data is a PyTorch state_dict: {@code safetensors.torch.load_file} followed by
 *       {@code nn.MultiheadAttention.load_state_dict} reads it back, and
 *       {@link #fromSafeTensors} reads what PyTorch wrote — one format, one reader.</li>
 * </ul>
 */
public final class MultiHeadAttentionModel extends Model<MultiHeadAttentionModel>
    implements AttentionParams<MultiHeadAttentionModel>, MLWritable {

    private static final long serialVersionUID = 1L;

    /** The weights file under a saved model's {@code data} directory. */
    static final String WEIGHTS_FILE = "weights.safetensors";
    /** Key of the head count in the weights file's {@code __metadata__} (PyTorch does not store it). */
    static final String NUM_HEADS_KEY = "num_heads";

    private final String uid;
    private final MultiHeadAttentionWeights weights;
    private AttentionParamSet params;
    /** The layer shipped to executors, once per SparkContext and kernel spec; shared with the model's copies. */
    private transient ContextBroadcast<MultiHeadAttentionLayer> shipped;

    /**
     * An empty model, without weights: what Spark Connect ML's service loader instantiates to list
     * the stage. {@link #transform} refuses it; use {@link #load}, {@link #fromSafeTensors} or
     * {@link MultiHeadAttention#fit}.
     */
    public MultiHeadAttentionModel() {
        this(Identifiable$.MODULE$.randomUID("mhaModel"), null);
    }

    /**
     * A model with a random uid.
     *
     * @param weights the layer's weights (PyTorch's layout, {@code numKvHeads == numHeads})
     */
    public MultiHeadAttentionModel(MultiHeadAttentionWeights weights) {
        this(Identifiable$.MODULE$.randomUID("mhaModel"), Objects.requireNonNull(weights, "weights"));
    }

    /**
     * A model with the given uid (used by {@link MultiHeadAttention#fit}, persistence and {@link #copy}).
     *
     * @param uid     the stage's uid
     * @param weights the layer's weights (PyTorch's layout, {@code numKvHeads == numHeads})
     * @throws IllegalArgumentException for grouped-query weights
     */
    public MultiHeadAttentionModel(String uid, MultiHeadAttentionWeights weights) {
        this.uid = uid;
        if (weights != null && weights.numKvHeads() != weights.numHeads()) {
            throw new IllegalArgumentException("MultiHeadAttentionModel holds nn.MultiheadAttention weights; "
                + "grouped-query weights (numKvHeads " + weights.numKvHeads() + " < numHeads " + weights.numHeads()
                + ") are not supported");
        }
        this.weights = weights;
        init();
    }

    private void init() {
        params = new AttentionParamSet(this);
        if (weights != null) {
            set(numHeads(), weights.numHeads());
        }
    }

    /**
     * Builds a model from a PyTorch {@code nn.MultiheadAttention} state_dict saved as safetensors
     * ({@code safetensors.torch.save_file(module.state_dict(), path)}), on any Hadoop file system.
     *
     * @param path     the file (a local path, or {@code hdfs://}, {@code s3a://}...)
     * @param numHeads the module's number of heads, which PyTorch does not store; must divide E
     * @param prefix   the module's name prefix in the state_dict ({@code "self_attn."}), or {@code ""}
     * @return the model
     * @throws IllegalArgumentException when {@code numHeads} does not divide E
     * @throws UncheckedIOException wrapping a {@link java.io.FileNotFoundException} or a
     *     {@link io.sparkattention.io.TensorFormatException} naming the file and tensor
     */
    public static MultiHeadAttentionModel fromSafeTensors(String path, int numHeads, String prefix) {
        return new MultiHeadAttentionModel(loadStateDict(path, numHeads, prefix, StageData.hadoopConf()));
    }

    /** The weights of a state_dict file, read through Hadoop's file system API. */
    static MultiHeadAttentionWeights loadStateDict(String path, int numHeads, String prefix, Configuration conf) {
        try {
            return MultiHeadAttentionStateDict.load(HadoopSafeTensors.read(path, conf), prefix, numHeads);
        } catch (IOException e) {
            throw new UncheckedIOException(e.getMessage(), e);
        }
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
     * The layer's weights.
     *
     * @return the weights (shared, not copied; do not modify)
     */
    public MultiHeadAttentionWeights weights() {
        return weights;
    }

    @Override
    public StructType transformSchema(StructType schema) {
        if (weights == null) {
            throw new IllegalStateException("MultiHeadAttentionModel " + uid + " has no weights; build it with "
                + "MultiHeadAttention.fit, MultiHeadAttentionModel.load or MultiHeadAttentionModel.fromSafeTensors");
        }
        if (getNumHeads() != weights.numHeads()) {
            throw new IllegalArgumentException("numHeads (" + getNumHeads() + ") differs from the model's weights, "
                + "which have " + weights.numHeads() + " heads");
        }
        MultiHeadAttention.checkNoGroupedQuery(this);
        return StageSchema.transformSchema(this, schema, layerWidths());
    }

    @Override
    public Dataset<Row> transform(Dataset<?> dataset) {
        StructType schema = dataset.schema();
        transformSchema(schema, true);
        AttentionSpec spec = attentionSpec();
        AttentionStageJob.StageColumns columns = StageSchema.columns(this, schema, layerWidths());
        Broadcast<MultiHeadAttentionLayer> shipped = shipped().get(dataset.sparkSession().sparkContext(), spec);
        LayerSource source = new BroadcastLayerSource(shipped, columns.query.name, columns.key.name, columns.value.name);
        AttentionStageJob job = new AttentionStageJob(columns, source, spec, getNumHeads(), weightsMode(),
            "keep".equals(getHandleInvalid()), StageSchema.outputStruct(this, columns, layerWidths()));
        return AttentionExecution.transform(dataset, job, Strategy.parse(getStrategy()));
    }

    /** The widths the weights take: embed_dim (query), kdim (key), vdim (value). */
    private int[] layerWidths() {
        return new int[] {weights.embedDim(), weights.kdim(), weights.vdim()};
    }

    @Override
    public MultiHeadAttentionModel copy(ParamMap extra) {
        MultiHeadAttentionModel copied = copyValues(new MultiHeadAttentionModel(uid, weights), extra);
        copied.shipped = shipped();
        return copied.setParent(parent());
    }

    /** The layer on the current params' kernel spec (the broadcast's key). */
    private synchronized ContextBroadcast<MultiHeadAttentionLayer> shipped() {
        if (shipped == null) {
            shipped = new ContextBroadcast<>(() -> new MultiHeadAttentionLayer(weights, new FlashAttention(attentionSpec())));
        }
        return shipped;
    }

    /** Params as MLlib metadata, weights as a safetensors state_dict under {@code data/}. */
    @Override
    public MLWriter write() {
        if (weights == null) {
            throw new IllegalStateException("MultiHeadAttentionModel " + uid + " has no weights to save");
        }
        return StageData.writer(this, (path, conf) -> HadoopSafeTensors.write(StageData.dataFile(path, WEIGHTS_FILE),
            MultiHeadAttentionStateDict.toTensors(weights, ""), Map.of(NUM_HEADS_KEY,
                Integer.toString(weights.numHeads()), "format", "torch.nn.MultiheadAttention state_dict"), conf));
    }

    /**
     * Reader for {@link #load}.
     *
     * @return the reader of params metadata and safetensors weights
     */
    public static MLReader<MultiHeadAttentionModel> read() {
        return StageData.reader(List.of(MultiHeadAttentionModel.class.getName()), (uid, path, conf) -> {
            String file = StageData.dataFile(path, WEIGHTS_FILE);
            SafeTensors st = HadoopSafeTensors.read(file, conf);
            String heads = st.metadata().get(NUM_HEADS_KEY);
            if (heads == null) {
                throw new IOException(file + ": no " + NUM_HEADS_KEY + " in the file's metadata");
            }
            return new MultiHeadAttentionModel(uid, MultiHeadAttentionStateDict.load(st, "", Integer.parseInt(heads)));
        });
    }

    /**
     * Loads a model saved with {@code write().save(path)}.
     *
     * @param path the directory the model was saved to
     * @return the model, with its uid, params and weights
     */
    public static MultiHeadAttentionModel load(String path) {
        return read().load(path);
    }

    @Override
    public String toString() {
        return "MultiHeadAttentionModel: uid=" + uid + (weights == null ? ", no weights" : ", embed_dim="
            + weights.embedDim() + ", num_heads=" + weights.numHeads() + ", kdim=" + weights.kdim() + ", vdim="
            + weights.vdim() + ", bias=" + weights.hasBias());
    }
}

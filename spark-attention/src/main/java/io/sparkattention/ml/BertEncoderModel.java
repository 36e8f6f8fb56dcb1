package io.sparkattention.ml;

import io.sparkattention.io.BertModelFiles;
import io.sparkattention.io.BundledModels;
import io.sparkattention.io.SafeTensors;
import io.sparkattention.bert.BertConfig;
import io.sparkattention.bert.BertEncoder;
import io.sparkattention.nn.Pooling;
import io.sparkattention.rows.SequenceLayout;
import io.sparkattention.sparkinternal.ParamsMetadata;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.ml.Model;
import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.param.ParamValidators;
import org.apache.spark.ml.util.Identifiable$;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.ml.util.MLWritable;
import org.apache.spark.ml.util.MLWriter;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * A pretrained BERT-family encoder ({@link BertEncoder}: embeddings, then post-LayerNorm layers of
 * the library's multi-head attention and a GELU feed-forward) over DataFrame rows: each row's
 * token ids ({@code array<int>}, e.g. from {@link io.sparkattention.ml.feature.HuggingFaceTokenizer})
 * in; a sentence embedding as an MLlib {@code Vector} (so {@code LogisticRegression},
 * {@code KMeans} and {@code BucketedRandomProjectionLSH} take it as it is), the last hidden state
 * (L×E) and one layer's per-head attention probabilities (H×L×L) out, each optional.
 *
 * <pre>{@code
 * Pipeline pipeline = new Pipeline().setStages(new PipelineStage[] {
 *     HuggingFaceTokenizer.pretrained("all-minilm-l6-v2"),
 *     BertEncoderModel.pretrained("all-minilm-l6-v2").setOutputCol("features"),
 *     new LogisticRegression()});
 * }</pre>
 *
 * <p>Each row is one sequence of its own length: nothing is padded and no row's computation sees
 * another's, so a sentence's outputs are bitwise the same however the rows are partitioned and
 * whatever rows share its task. Null ids follow {@code handleInvalid} ({@code error}: the row is
 * named; {@code skip}; {@code keep}: null outputs); an id outside the vocabulary is an error naming
 * the row and position.
 *
 * <p>The encoder reaches the executors by one broadcast per model and SparkContext, made on the
 * first {@code transform} and reused by later ones and by the model's copies; each executor JVM deserializes it once and
 * prepares its projections once for all its tasks. Spark's context cleaner removes the broadcast
 * once the model is no longer referenced.
 *
 * <h2>Persistence</h2>
 * {@code write().save(path)} stores the params as MLlib metadata and the weights as a Hugging Face
 * {@code BertModel} safetensors file under {@code path/data/encoder.safetensors} (the heads and the
 * LayerNorm ε in its {@code __metadata__}), through Hadoop's file system: a saved pipeline carries
 * its encoder, and the file loads in PyTorch as a {@code BertModel} state_dict.
 */
public final class BertEncoderModel extends Model<BertEncoderModel> implements MLWritable {

    private static final long serialVersionUID = 1L;

    /** The weights file under a saved model's {@code data} directory. */
    static final String WEIGHTS_FILE = "encoder.safetensors";
    /** The values of {@code handleInvalid}. */
    static final String[] HANDLE_INVALID = {"error", "skip", "keep"};
    /** The values of {@code statesLayout}. */
    static final String[] STATES_LAYOUTS = {"nested", "flat"};
    /** The values of {@code pooling}. */
    static final String[] POOLINGS = {"mean", "cls", "max"};

    private final String uid;
    private final BertEncoder encoder;
    private Param<String> inputCol;
    private Param<String> outputCol;
    private Param<String> statesCol;
    private Param<String> statesLayout;
    private Param<String> attentionCol;
    private IntParam attentionLayer;
    private Param<String> pooling;
    private BooleanParam normalize;
    private Param<String> handleInvalid;
    private Param<String> rowIdCol;
    /** The encoder shipped to executors, once per SparkContext. */
    private transient Broadcast<ShippedEncoder> shipped;
    private transient SparkContext shippedTo;

    /**
     * An empty model, without weights: what Spark Connect ML's service loader instantiates to list
     * the stage. {@link #transform} refuses it; use {@link #fromOnnx}, {@link #fromSafeTensors},
     * {@link #pretrained} or {@link #load}.
     */
    public BertEncoderModel() {
        this(Identifiable$.MODULE$.randomUID("bertEncoder"), null);
    }

    /**
     * A model with a random uid.
     *
     * @param encoder the encoder
     */
    public BertEncoderModel(BertEncoder encoder) {
        this(Identifiable$.MODULE$.randomUID("bertEncoder"), Objects.requireNonNull(encoder, "encoder"));
    }

    /**
     * A model with the given uid (used by persistence and {@link #copy}).
     *
     * @param uid     the stage's uid
     * @param encoder the encoder, or null for an empty model
     */
    public BertEncoderModel(String uid, BertEncoder encoder) {
        this.uid = Objects.requireNonNull(uid, "uid");
        this.encoder = encoder;
        init();
    }

    /**
     * The encoder in an ONNX file (a BERT-family graph as Hugging Face's exporters write it), on any
     * Hadoop file system.
     *
     * @param path     a local path, or {@code hdfs://}, {@code s3a://}...
     * @param numHeads the heads, or 0 to take them from the graph
     * @return the model
     * @throws UncheckedIOException wrapping the {@link io.sparkattention.io.TensorFormatException}
     *     naming the file and tensor when it is not such a model, or the read failure
     * @throws IllegalArgumentException when the heads contradict the graph or do not divide E
     */
    public static BertEncoderModel fromOnnx(String path, int numHeads) {
        Path p = new Path(path);
        try {
            FileSystem fs = p.getFileSystem(MultiHeadAttentionModel.hadoopConf());
            try (FSDataInputStream in = fs.open(p)) {
                return new BertEncoderModel(BertModelFiles.fromOnnx(in, path, numHeads));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(message(e, path), e);
        }
    }

    /**
     * The encoder in a Hugging Face {@code BertModel} safetensors file, on any Hadoop file system.
     *
     * @param path     a local path, or {@code hdfs://}, {@code s3a://}...
     * @param prefix   the model's name prefix ({@code bert.}, {@code 0.auto_model.}), or {@code ""}
     * @param numHeads the heads, which no tensor shows; must divide E
     * @return the model
     * @throws UncheckedIOException wrapping the {@link io.sparkattention.io.TensorFormatException}
     *     naming the file and tensor, or the read failure
     * @throws IllegalArgumentException when the heads do not divide E
     */
    public static BertEncoderModel fromSafeTensors(String path, String prefix, int numHeads) {
        try {
            SafeTensors file = HadoopSafeTensors.read(path, MultiHeadAttentionModel.hadoopConf());
            return new BertEncoderModel(BertModelFiles.fromSafeTensors(file, prefix, numHeads));
        } catch (IOException e) {
            throw new UncheckedIOException(message(e, path), e);
        }
    }

    /**
     * The encoder of a model bundled on the class path ({@link BundledModels}), e.g.
     * {@code "all-minilm-l6-v2"}.
     *
     * @param name the model's name
     * @return the model
     * @throws IllegalArgumentException for an unknown name
     * @throws IllegalStateException naming the artifact to add when it is not on the class path
     */
    public static BertEncoderModel pretrained(String name) {
        try {
            return new BertEncoderModel(BundledModels.encoder(name));
        } catch (IOException e) {
            throw new UncheckedIOException(message(e, name), e);
        }
    }

    private static String message(IOException e, String what) {
        String m = e.getMessage();
        return m != null && m.contains(what) ? m : what + ": " + m;
    }

    private void init() {
        inputCol = new Param<>(this, "inputCol", "input column: token ids (array<int> or array<bigint>)");
        outputCol = new Param<>(this, "outputCol",
            "output column: the sentence embedding (an MLlib vector of E values); empty for none");
        statesCol = new Param<>(this, "statesCol",
            "optional output column: the last hidden state (L×E, see statesLayout); empty for none");
        statesLayout = new Param<>(this, "statesLayout",
            "statesCol's layout: nested (array<array<float>>) or flat (array<float> of L·E values with the width "
                + "in the column's metadata)", ParamValidators.inArray(STATES_LAYOUTS));
        attentionCol = new Param<>(this, "attentionCol",
            "optional output column: layer attentionLayer's attention probabilities per head, H×L×L "
                + "(array<array<array<float>>>); empty for none");
        attentionLayer = new IntParam(this, "attentionLayer", "the layer attentionCol shows, from 0",
            ParamValidators.gtEq(0));
        pooling = new Param<>(this, "pooling",
            "how the token states become the embedding: mean (over all tokens, [CLS] and [SEP] included), cls "
                + "(the first token) or max (per dimension)", ParamValidators.inArray(POOLINGS));
        normalize = new BooleanParam(this, "normalize", "L2-normalise the embedding");
        handleInvalid = new Param<>(this, "handleInvalid",
            "null id arrays: error (fail naming the row), skip (drop the row) or keep (null outputs)",
            ParamValidators.inArray(HANDLE_INVALID));
        setDefault(inputCol, "input_ids");
        setDefault(outputCol, "embedding");
        setDefault(statesCol, "");
        setDefault(statesLayout, "nested");
        setDefault(attentionCol, "");
        setDefault(attentionLayer, 0);
        setDefault(pooling, "mean");
        setDefault(normalize, true);
        rowIdCol = new Param<>(this, "rowIdCol", "column naming rows in data error messages; empty: position");
        setDefault(handleInvalid, "error");
        setDefault(rowIdCol, "");
    }

    @Override
    public String uid() {
        return uid;
    }

    /**
     * The encoder.
     *
     * @return the encoder (shared, not copied)
     * @throws IllegalStateException for an empty model
     */
    public BertEncoder encoder() {
        if (encoder == null) {
            throw new IllegalStateException("BertEncoderModel " + uid + " has no encoder; build it with "
                + "BertEncoderModel.fromOnnx, fromSafeTensors, pretrained or load");
        }
        return encoder;
    }

    /** @return the input column param (default {@code input_ids}) */
    public Param<String> inputCol() {
        return inputCol;
    }

    /** @return the input column */
    public String getInputCol() {
        return getOrDefault(inputCol);
    }

    /**
     * @param value the token ids' column
     * @return this stage
     */
    public BertEncoderModel setInputCol(String value) {
        set(inputCol, value);
        return this;
    }

    /** @return the embedding column param (default {@code embedding}) */
    public Param<String> outputCol() {
        return outputCol;
    }

    /** @return the embedding column, or empty */
    public String getOutputCol() {
        return getOrDefault(outputCol);
    }

    /**
     * @param value the embedding's column (an MLlib vector), or empty for none
     * @return this stage
     */
    public BertEncoderModel setOutputCol(String value) {
        set(outputCol, value);
        return this;
    }

    /** @return the last hidden state's column param (default empty: none) */
    public Param<String> statesCol() {
        return statesCol;
    }

    /** @return the last hidden state's column, or empty */
    public String getStatesCol() {
        return getOrDefault(statesCol);
    }

    /**
     * @param value the last hidden state's column (L×E), or empty for none
     * @return this stage
     */
    public BertEncoderModel setStatesCol(String value) {
        set(statesCol, value);
        return this;
    }

    /** @return the states layout param (default {@code nested}) */
    public Param<String> statesLayout() {
        return statesLayout;
    }

    /** @return {@code nested} or {@code flat} */
    public String getStatesLayout() {
        return getOrDefault(statesLayout);
    }

    /**
     * @param value {@code nested} or {@code flat}
     * @return this stage
     */
    public BertEncoderModel setStatesLayout(String value) {
        set(statesLayout, value);
        return this;
    }

    /** @return the attention column param (default empty: none) */
    public Param<String> attentionCol() {
        return attentionCol;
    }

    /** @return the attention column, or empty */
    public String getAttentionCol() {
        return getOrDefault(attentionCol);
    }

    /**
     * @param value the column of one layer's per-head attention (H×L×L), or empty for none
     * @return this stage
     */
    public BertEncoderModel setAttentionCol(String value) {
        set(attentionCol, value);
        return this;
    }

    /** @return the param of the layer the attention column shows (default 0) */
    public IntParam attentionLayer() {
        return attentionLayer;
    }

    /** @return the layer the attention column shows */
    public int getAttentionLayer() {
        return (Integer) getOrDefault(attentionLayer);
    }

    /**
     * @param value the layer the attention column shows, in [0, layers)
     * @return this stage
     */
    public BertEncoderModel setAttentionLayer(int value) {
        set(attentionLayer, value);
        return this;
    }

    /** @return the pooling param (default {@code mean}) */
    public Param<String> pooling() {
        return pooling;
    }

    /** @return {@code mean}, {@code cls} or {@code max} */
    public String getPooling() {
        return getOrDefault(pooling);
    }

    /**
     * @param value {@code mean}, {@code cls} or {@code max}
     * @return this stage
     */
    public BertEncoderModel setPooling(String value) {
        set(pooling, value == null ? null : value.toLowerCase(Locale.ROOT));
        return this;
    }

    /** @return the normalise param (default true) */
    public BooleanParam normalize() {
        return normalize;
    }

    /** @return whether the embedding is L2-normalised */
    public boolean getNormalize() {
        return (Boolean) getOrDefault(normalize);
    }

    /**
     * @param value whether to L2-normalise the embedding
     * @return this stage
     */
    public BertEncoderModel setNormalize(boolean value) {
        set(normalize, value);
        return this;
    }

    /** @return the row id param (default empty: rows are named by their position in their partition) */
    public Param<String> rowIdCol() {
        return rowIdCol;
    }

    /** @return the column naming rows in error messages, or empty */
    public String getRowIdCol() {
        return getOrDefault(rowIdCol);
    }

    /**
     * @param value a column naming rows in data error messages ("row ID: ..."), or empty
     * @return this stage
     */
    public BertEncoderModel setRowIdCol(String value) {
        set(rowIdCol, value);
        return this;
    }

    /** @return the param for null id arrays (default {@code error}) */
    public Param<String> handleInvalid() {
        return handleInvalid;
    }

    /** @return {@code error}, {@code skip} or {@code keep} */
    public String getHandleInvalid() {
        return getOrDefault(handleInvalid);
    }

    /**
     * @param value {@code error}, {@code skip} or {@code keep}
     * @return this stage
     */
    public BertEncoderModel setHandleInvalid(String value) {
        set(handleInvalid, value);
        return this;
    }

    /** The outputs asked for, checked against the model. */
    private EncodeFunction.Outputs outputs() {
        BertConfig config = encoder().config();
        boolean attention = !getAttentionCol().isEmpty();
        if (attention && getAttentionLayer() >= config.layers()) {
            throw new IllegalArgumentException("attentionLayer " + getAttentionLayer() + " is outside [0, "
                + config.layers() + "): the model has " + config.layers() + " layers");
        }
        return new EncodeFunction.Outputs(!getOutputCol().isEmpty(), Pooling.parse(getPooling()),
            getNormalize(), !getStatesCol().isEmpty(), "flat".equals(getStatesLayout()),
            attention ? getAttentionLayer() : -1);
    }

    /** The added columns, in order: embedding, states, attention (those asked for). */
    private List<StructField> outputFields(EncodeFunction.Outputs outputs) {
        StructType result = EncodeFunction.resultType(outputs);
        List<StructField> out = new ArrayList<>();
        if (outputs.embedding()) {
            out.add(new StructField(getOutputCol(), result.apply(EncodeFunction.EMBEDDING).dataType(), true,
                Metadata.empty()));
        }
        if (outputs.states()) {
            out.add(new StructField(getStatesCol(), result.apply(EncodeFunction.STATES).dataType(), true,
                outputs.flatStates() ? SequenceLayout.widthMetadata(encoder().config().hidden()) : Metadata.empty()));
        }
        if (outputs.attention()) {
            out.add(new StructField(getAttentionCol(), result.apply(EncodeFunction.ATTENTION).dataType(), true,
                Metadata.empty()));
        }
        return out;
    }

    @Override
    public StructType transformSchema(StructType schema) {
        EncodeFunction.Outputs outputs = outputs();
        String input = getInputCol();
        DataType type = StageSchema.field(schema, input, "inputCol").dataType();
        if (!EncodeFunction.isIds(type)) {
            throw new IllegalArgumentException("column " + input + " (inputCol): expected array<int> or array<bigint> "
                + "token ids, found " + type.simpleString());
        }
        List<StructField> added = outputFields(outputs);
        if (added.isEmpty()) {
            throw new IllegalArgumentException("BertEncoderModel " + uid + " has no output: set outputCol, statesCol "
                + "or attentionCol");
        }
        Set<String> names = new HashSet<>(Arrays.asList(schema.fieldNames()));
        StructType result = schema;
        for (StructField f : added) {
            if (!names.add(f.name())) {
                throw new IllegalArgumentException("output column " + f.name() + " already exists in the input or is "
                    + "named twice (outputCol, statesCol, attentionCol)");
            }
            result = result.add(f);
        }
        return result;
    }

    @Override
    public Dataset<Row> transform(Dataset<?> dataset) {
        StructType schema = dataset.schema();
        transformSchema(schema, true);
        EncodeFunction.Outputs outputs = outputs();
        String input = getInputCol();
        Column ids = functions.col("`" + input.replace("`", "``") + "`");
        String mode = getHandleInvalid();
        boolean longIds = ((org.apache.spark.sql.types.ArrayType) schema.apply(input).dataType()).elementType()
            .equals(DataTypes.LongType);
        EncodeFunction function = new EncodeFunction(shipped(dataset.sparkSession().sparkContext()), input, longIds,
            "error".equals(mode), outputs);
        Dataset<Row> df = dataset.toDF();
        if ("skip".equals(mode)) {
            df = df.filter(ids.isNotNull());
        }
        String encoded = uid + "__encoded";
        df = df.withColumn(encoded, io.sparkattention.exec.RowFunctions.column("bert_encode", function,
            EncodeFunction.resultType(outputs), rowId(), List.of(ids)));
        Column result = functions.col("`" + encoded + "`");
        String[] fields = {EncodeFunction.EMBEDDING, EncodeFunction.STATES, EncodeFunction.ATTENTION};
        boolean[] asked = {outputs.embedding(), outputs.states(), outputs.attention()};
        int added = 0;
        List<StructField> columns = outputFields(outputs);
        for (int i = 0; i < fields.length; i++) {
            if (asked[i]) {
                StructField f = columns.get(added++);
                df = df.withColumn(f.name(), result.getField(fields[i]).as(f.name(), f.metadata()));
            }
        }
        return df.drop(encoded);
    }

    /** The row id column for error messages, or null. */
    private Column rowId() {
        String id = getRowIdCol();
        return id.isEmpty() ? null : functions.col("`" + id.replace("`", "``") + "`");
    }

    private synchronized Broadcast<ShippedEncoder> shipped(SparkContext sc) {
        if (shipped == null || shippedTo != sc) {
            shipped = JavaSparkContext.fromSparkContext(sc).broadcast(ShippedEncoder.of(encoder()));
            shippedTo = sc;
        }
        return shipped;
    }

    @Override
    public BertEncoderModel copy(ParamMap extra) {
        BertEncoderModel copied = copyValues(new BertEncoderModel(uid, encoder), extra);
        synchronized (this) {
            // The same encoder: a copy (a CrossValidator's, a pipeline's) reuses the broadcast.
            copied.shipped = shipped;
            copied.shippedTo = shippedTo;
        }
        return copied.setParent(parent());
    }

    @Override
    public MLWriter write() {
        return new Writer(this);
    }

    /**
     * Reader for {@link #load}.
     *
     * @return the reader of params metadata and safetensors weights
     */
    public static MLReader<BertEncoderModel> read() {
        return new Reader();
    }

    /**
     * Loads a model saved with {@code write().save(path)}.
     *
     * @param path the directory the model was saved to
     * @return the model, with its uid, params and weights
     */
    public static BertEncoderModel load(String path) {
        return read().load(path);
    }

    @Override
    public String toString() {
        if (encoder == null) {
            return "BertEncoderModel: uid=" + uid + ", no encoder";
        }
        BertConfig c = encoder.config();
        return "BertEncoderModel: uid=" + uid + ", layers=" + c.layers() + ", hidden=" + c.hidden() + ", heads="
            + c.heads() + ", vocab=" + c.vocabSize();
    }

    /** Params as MLlib metadata, weights as a Hugging Face BertModel safetensors file under {@code data/}. */
    private static final class Writer extends MLWriter {
        private final BertEncoderModel instance;

        Writer(BertEncoderModel instance) {
            this.instance = instance;
        }

        @Override
        public void saveImpl(String path) {
            BertEncoder encoder = instance.encoder();
            ParamsMetadata.save(instance, path, sparkSession());
            Path file = new Path(new Path(path, "data"), WEIGHTS_FILE);
            try {
                FileSystem fs = file.getFileSystem(sparkSession().sparkContext().hadoopConfiguration());
                try (FSDataOutputStream out = fs.create(file, false)) {
                    BertModelFiles.writeSafeTensors(encoder, out);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** Reads what {@link Writer} wrote. */
    private static final class Reader extends MLReader<BertEncoderModel> {

        @Override
        public BertEncoderModel load(String path) {
            return ParamsMetadata.load(path, sparkSession(), BertEncoderModel.class.getName(),
                uid -> new BertEncoderModel(uid, readEncoder(path)));
        }

        private BertEncoder readEncoder(String path) {
            String file = new Path(new Path(path, "data"), WEIGHTS_FILE).toString();
            try {
                SafeTensors st = HadoopSafeTensors.read(file, sparkSession().sparkContext().hadoopConfiguration());
                String heads = st.metadata().get(BertModelFiles.META_HEADS);
                if (heads == null) {
                    throw new IOException(file + ": no " + BertModelFiles.META_HEADS + " in the file's metadata");
                }
                return BertModelFiles.fromSafeTensors(st, "", Integer.parseInt(heads));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}

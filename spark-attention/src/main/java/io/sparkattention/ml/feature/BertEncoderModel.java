package io.sparkattention.ml.feature;

import io.sparkattention.ml.Shipped;
import io.sparkattention.exec.RowFunctions;
import io.sparkattention.io.BertModelFiles;
import io.sparkattention.io.BundledModels;
import io.sparkattention.io.SafeTensors;
import io.sparkattention.ml.ContextBroadcast;
import io.sparkattention.ml.HadoopSafeTensors;
import io.sparkattention.ml.StageData;
import io.sparkattention.ml.StageParamSet;
import io.sparkattention.ml.StageParams;
import io.sparkattention.ml.StageSchema;
import io.sparkattention.bert.BertConfig;
import io.sparkattention.bert.BertEncoder;
import io.sparkattention.nn.Pooling;
import io.sparkattention.rows.TokenIds;
import io.sparkattention.rows.SequenceLayout;
import io.sparkattention.sparkinternal.InternalFrames;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.ml.Model;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.Identifiable$;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.ml.util.MLWritable;
import org.apache.spark.ml.util.MLWriter;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.ArrayType;
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
import java.util.Objects;
import java.util.Set;

/**
 * A pretrained BERT-family encoder ({@link BertEncoder}: embeddings, then post-LayerNorm layers of
 * the library's multi-head attention and a GELU feed-forward) over DataFrame rows: each row's
 * token ids ({@code array<int>}, e.g. from {@link HuggingFaceTokenizer}) in; a sentence embedding
 * as an MLlib {@code Vector} (so {@code LogisticRegression}, {@code KMeans} and
 * {@code BucketedRandomProjectionLSH} take it as it is), the last hidden state (L×E) and one
 * layer's per-head attention probabilities (H×L×L) out, each optional.
 *
 * <pre>{@code
 * Pipeline pipeline = new Pipeline().setStages(new PipelineStage[] {
 *     HuggingFaceTokenizer.pretrained("all-minilm-l6-v2"),
 *     BertEncoderModel.pretrained("all-minilm-l6-v2").setOutputCol("features"),
 *     new LogisticRegression()});
 * }</pre>
 *
 * <p>Each task encodes its rows in batches ({@link EncoderBatches}: consecutive rows up to
 * {@code batchRows} rows and {@code batchTokens} tokens, sorted by length, one stacked forward)
 * and returns them in their order. Nothing is padded and no row's arithmetic depends on another's,
 * so a sentence's outputs are bitwise the same however the rows are partitioned and batched.
 * Null ids follow {@code handleInvalid} ({@code error}: the row is named; {@code skip};
 * {@code keep}: null outputs); an id outside the vocabulary or more ids than the model's positions
 * is an error naming the row and position.
 *
 * <p>The encoder reaches the executors by one broadcast per SparkContext ({@link ContextBroadcast}),
 * shared by the model's copies; each executor JVM deserializes it once and prepares its
 * projections once for all its tasks.
 *
 * <h2>Persistence</h2>
 * {@code write().save(path)} stores the params as MLlib metadata and the weights as a Hugging Face
 * {@code BertModel} safetensors file under {@code path/data/encoder.safetensors} (the heads and the
 * LayerNorm ε in its {@code __metadata__}), through Hadoop's file system: a saved pipeline carries
 * its encoder, and the file loads in PyTorch as a {@code BertModel} state_dict. Models saved as
 * {@code io.sparkattention.ml.BertEncoderModel} load too.
 */
public final class BertEncoderModel extends Model<BertEncoderModel>
    implements MLWritable, StageParams<BertEncoderModel>, BertEncoderParams<BertEncoderModel> {

    private static final long serialVersionUID = 1L;

    /** The weights file under a saved model's {@code data} directory. */
    static final String WEIGHTS_FILE = "encoder.safetensors";
    /** The class names a saved model's metadata may give: this class's, then its name before it moved. */
    static final List<String> SAVED_AS = List.of(BertEncoderModel.class.getName(),
        "io.sparkattention.ml.BertEncoderModel");

    private final String uid;
    private final BertEncoder encoder;
    private StageParamSet stageParams;
    private BertEncoderParamSet encoderParams;
    /** The encoder shipped to executors, once per SparkContext; shared with the model's copies. */
    private transient ContextBroadcast<Shipped<BertEncoder>> shipped;

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
        stageParams = new StageParamSet(this, "input column: token ids (array<int> or array<bigint>)", "input_ids",
            "output column: the sentence embedding (an MLlib vector of E values); empty for none", "embedding",
            "null id arrays: error (fail naming the row), skip (drop the row) or keep (null outputs)",
            StageParamSet.NULL_HANDLING);
        encoderParams = new BertEncoderParamSet(this);
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
            FileSystem fs = p.getFileSystem(StageData.hadoopConf());
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
            SafeTensors file = HadoopSafeTensors.read(path, StageData.hadoopConf());
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

    @Override
    public String uid() {
        return uid;
    }

    @Override
    public StageParamSet stageParamSet() {
        return stageParams;
    }

    @Override
    public BertEncoderParamSet encoderParamSet() {
        return encoderParams;
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

    /** The outputs asked for, checked against the model. */
    private EncoderRows.Outputs outputs() {
        BertConfig config = encoder().config();
        boolean attention = !getAttentionCol().isEmpty();
        if (attention && getAttentionLayer() >= config.layers()) {
            throw new IllegalArgumentException("attentionLayer " + getAttentionLayer() + " is outside [0, "
                + config.layers() + "): the model has " + config.layers() + " layers");
        }
        return new EncoderRows.Outputs(!getOutputCol().isEmpty(), Pooling.parse(getPooling()),
            getNormalize(), !getStatesCol().isEmpty(), "flat".equals(getStatesLayout()),
            attention ? getAttentionLayer() : -1);
    }

    /** The added columns, in order: embedding, states, attention (those asked for). */
    private List<StructField> outputFields(EncoderRows.Outputs outputs) {
        StructType result = EncoderRows.resultType(outputs);
        List<StructField> out = new ArrayList<>();
        if (outputs.embedding()) {
            out.add(new StructField(getOutputCol(), result.apply(EncoderRows.EMBEDDING).dataType(), true,
                Metadata.empty()));
        }
        if (outputs.states()) {
            out.add(new StructField(getStatesCol(), result.apply(EncoderRows.STATES).dataType(), true,
                outputs.flatStates() ? SequenceLayout.widthMetadata(encoder().config().hidden()) : Metadata.empty()));
        }
        if (outputs.attention()) {
            out.add(new StructField(getAttentionCol(), result.apply(EncoderRows.ATTENTION).dataType(), true,
                Metadata.empty()));
        }
        return out;
    }

    @Override
    public StructType transformSchema(StructType schema) {
        EncoderRows.Outputs outputs = outputs();
        String input = getInputCol();
        DataType type = StageSchema.field(schema, input, "inputCol").dataType();
        if (!EncoderRows.isIds(type)) {
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

    /**
     * Appends the outputs asked for. A batch DataFrame's rows are encoded in batches per task and
     * come back in their order; like {@code Dataset.rdd}, this plans the input, which runs the
     * input's own shuffle stages (if any) when adaptive execution is on. A streaming DataFrame's
     * rows are encoded one at a time. Either way a row's outputs are the bits it gets alone.
     */
    @Override
    public Dataset<Row> transform(Dataset<?> dataset) {
        StructType outSchema = transformSchema(dataset.schema(), true);
        EncoderRows.Outputs outputs = outputs();
        Dataset<Row> df = dataset.toDF();
        if ("skip".equals(getHandleInvalid())) {
            df = df.filter(inputColumn().isNotNull());
        }
        StructType schema = df.schema();
        String input = getInputCol();
        boolean longIds = ((ArrayType) schema.apply(input).dataType()).elementType().equals(DataTypes.LongType);
        EncoderRows rows = new EncoderRows(new TokenIds(input, longIds, "error".equals(getHandleInvalid()),
            encoder().config().vocabSize()), outputs);
        Broadcast<Shipped<BertEncoder>> model = shipped().get(df.sparkSession().sparkContext());
        if (df.isStreaming()) {
            return streamed(df, new EncodeFunction(model, rows), outputs);
        }
        int id = getRowIdCol().isEmpty() ? -1 : schema.fieldIndex(getRowIdCol());
        EncodePartition encode = new EncodePartition(model, rows, new EncoderBatches(getBatchRows(), getBatchTokens()),
            schema.fieldIndex(input), id, id < 0 ? null : schema.fields()[id].dataType());
        return InternalFrames.frame(df, InternalFrames.rows(df).toJavaRDD().mapPartitionsWithIndex(encode, true).rdd(),
            outSchema);
    }

    /** A stream's rows, one at a time through a row function, the struct's fields as the columns. */
    private Dataset<Row> streamed(Dataset<Row> df, EncodeFunction function, EncoderRows.Outputs outputs) {
        String encoded = uid + "__encoded";
        df = df.withColumn(encoded, RowFunctions.column("bert_encode", function, EncoderRows.resultType(outputs),
            rowIdColumn(), List.of(inputColumn())));
        Column result = StageParams.column(encoded);
        String[] fields = {EncoderRows.EMBEDDING, EncoderRows.STATES, EncoderRows.ATTENTION};
        boolean[] asked = {outputs.embedding(), outputs.states(), outputs.attention()};
        List<StructField> columns = outputFields(outputs);
        for (int i = 0, added = 0; i < fields.length; i++) {
            if (asked[i]) {
                StructField f = columns.get(added++);
                df = df.withColumn(f.name(), result.getField(fields[i]).as(f.name(), f.metadata()));
            }
        }
        return df.drop(encoded);
    }

    private synchronized ContextBroadcast<Shipped<BertEncoder>> shipped() {
        if (shipped == null) {
            shipped = new ContextBroadcast<>(() -> Shipped.of(encoder()));
        }
        return shipped;
    }

    @Override
    public BertEncoderModel copy(ParamMap extra) {
        BertEncoderModel copied = copyValues(new BertEncoderModel(uid, encoder), extra);
        copied.shipped = shipped();
        return copied.setParent(parent());
    }

    @Override
    public MLWriter write() {
        return StageData.writer(this, (path, conf) -> StageData.write(StageData.dataFile(path, WEIGHTS_FILE), conf,
            out -> BertModelFiles.writeSafeTensors(encoder(), out)));
    }

    /**
     * Reader for {@link #load}.
     *
     * @return the reader of params metadata and safetensors weights
     */
    public static MLReader<BertEncoderModel> read() {
        return StageData.reader(SAVED_AS, (uid, path, conf) -> {
            String file = StageData.dataFile(path, WEIGHTS_FILE);
            SafeTensors st = HadoopSafeTensors.read(file, conf);
            String heads = st.metadata().get(BertModelFiles.META_HEADS);
            if (heads == null) {
                throw new IOException(file + ": no " + BertModelFiles.META_HEADS + " in the file's metadata");
            }
            return new BertEncoderModel(uid, BertModelFiles.fromSafeTensors(st, "", Integer.parseInt(heads)));
        });
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
}

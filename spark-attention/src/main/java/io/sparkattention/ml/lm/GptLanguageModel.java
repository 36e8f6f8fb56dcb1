package io.sparkattention.ml.lm;

import io.sparkattention.gpt.GptConfig;
import io.sparkattention.gpt.GptDecoder;
import io.sparkattention.ml.ContextBroadcast;
import io.sparkattention.ml.Shipped;
import io.sparkattention.ml.StageData;
import io.sparkattention.ml.StageParamSet;
import io.sparkattention.ml.StageParams;
import io.sparkattention.ml.feature.EncoderBatches;
import io.sparkattention.ml.feature.NativeTokenizers;
import io.sparkattention.rows.TokenIds;
import io.sparkattention.sparkinternal.InternalFrames;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.ml.Model;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.Identifiable$;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.ml.util.MLWritable;
import org.apache.spark.ml.util.MLWriter;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Objects;

/**
 * A GPT-style causal language model ({@link GptDecoder}: GPT-2's pre-LayerNorm blocks on the
 * library's causal attention, the head tied to the token embedding) over DataFrame rows of token
 * ids ({@code array<int>} or {@code array<bigint>}, e.g. from
 * {@link io.sparkattention.ml.feature.HuggingFaceTokenizer}).
 *
 * <p>{@link #transform} scores every row: {@code log_prob} (the natural-log sum over tokens 1 … L−1
 * of each token's probability given the tokens before it), {@code tokens} (L−1) and
 * {@code perplexity} ({@code exp(-log_prob / tokens)}, null for a row of fewer than two tokens),
 * and with {@code tokenLogProbs} each token's log-probability. Rows longer than the model's
 * positions are scored with Hugging Face's sliding-window recipe ({@code stride}).
 * {@link #generate} continues every row: {@code generated_ids} (the new ids only) and, with a
 * tokenizer, {@code generated_text}; greedy, temperature, top-k and top-p sampling, an end-of-text
 * id, keyed per row by {@code (seed, row key, step)}.
 *
 * <pre>{@code
 * GptLanguageModel lm = GptLanguageModel.fromDirectory("/models/gpt2");   // save_pretrained's layout
 * Dataset<Row> scored = lm.transform(ids);                               // log_prob, tokens, perplexity
 * Dataset<Row> continued = lm.setMaxNewTokens(20).setTemperature(0.8).setTopP(0.95).generate(prompts);
 * }</pre>
 *
 * <p>Each task runs its rows in batches ({@link EncoderBatches}: consecutive rows up to
 * {@code batchRows} rows and {@code batchTokens} tokens, one call each) and returns them in their
 * order. Nothing is padded and no row's arithmetic depends on another's, so each row's numbers are
 * bitwise the same under any partitioning, batching and retry. Null ids follow {@code handleInvalid}
 * ({@code error}: the row is named; {@code skip}; {@code keep}: null outputs); an id outside the
 * vocabulary is an error naming the row and position. The decoder reaches the executors by one
 * broadcast per SparkContext ({@link ContextBroadcast}), shared by the model's copies.
 *
 * <h2>Persistence</h2>
 * {@code write().save(path)} stores the params as MLlib metadata and the model as a Hugging Face
 * GPT-2 directory under {@code path/data} ({@code config.json}, {@code model.safetensors} and the
 * {@code tokenizer.json} if the model has one), which {@code GPT2LMHeadModel.from_pretrained} loads.
 */
public final class GptLanguageModel extends Model<GptLanguageModel> implements MLWritable,
    StageParams<GptLanguageModel>, ScoringParams<GptLanguageModel>, GenerationParams<GptLanguageModel> {

    private static final long serialVersionUID = 1L;

    private final String uid;
    private final GptDecoder decoder;
    /** The tokenizer.json's bytes, or null: what {@code generated_text} is decoded with. */
    private final byte[] tokenizer;
    /** What the fit that made this model did, or null (a model read from files). */
    private GptLanguageModelSummary summary;
    private StageParamSet stageParams;
    private ScoringParamSet scoringParams;
    private GenerationParamSet generationParams;
    /** The decoder shipped to executors, once per SparkContext; shared with the model's copies. */
    private transient ContextBroadcast<Shipped<GptDecoder>> shipped;
    private transient ContextBroadcast<byte[]> shippedTokenizer;

    /**
     * An empty model, without weights: what Spark Connect ML's service loader instantiates to list
     * the stage. {@link #transform} refuses it; use {@link #fromDirectory} or {@link #load}.
     */
    public GptLanguageModel() {
        this(Identifiable$.MODULE$.randomUID("gptLanguageModel"), null, null);
    }

    /**
     * A model with a random uid.
     *
     * @param decoder   the decoder
     * @param tokenizer a Hugging Face tokenizer.json's bytes for {@code generated_text}, or null
     */
    public GptLanguageModel(GptDecoder decoder, byte[] tokenizer) {
        this(Identifiable$.MODULE$.randomUID("gptLanguageModel"), Objects.requireNonNull(decoder, "decoder"),
            tokenizer);
    }

    /**
     * A model with the given uid (used by persistence and {@link #copy}).
     *
     * @param uid       the stage's uid
     * @param decoder   the decoder, or null for an empty model
     * @param tokenizer a Hugging Face tokenizer.json's bytes, or null
     */
    public GptLanguageModel(String uid, GptDecoder decoder, byte[] tokenizer) {
        this.uid = Objects.requireNonNull(uid, "uid");
        this.decoder = decoder;
        this.tokenizer = tokenizer == null ? null : tokenizer.clone();
        stageParams = new StageParamSet(this, "input column: token ids (array<int> or array<bigint>)", "input_ids",
            "output column: the row's log-likelihood, natural log (double)", "log_prob",
            "null id arrays: error (fail naming the row), skip (drop the row) or keep (null outputs)",
            StageParamSet.NULL_HANDLING);
        scoringParams = new ScoringParamSet(this);
        generationParams = new GenerationParamSet(this);
    }

    /**
     * A Hugging Face GPT-2 model directory as {@code save_pretrained} writes it ({@code config.json},
     * {@code model.safetensors}, optionally {@code tokenizer.json}), on any Hadoop file system.
     *
     * @param dir a local path, or {@code hdfs://}, {@code s3a://}...
     * @return the model, with the directory's tokenizer if it has one
     * @throws UncheckedIOException naming the directory or file that is missing or not such a model
     * @throws IllegalArgumentException naming the config field or tensor the decoder cannot run
     */
    public static GptLanguageModel fromDirectory(String dir) {
        try {
            LanguageModelFiles.Loaded loaded = LanguageModelFiles.read(dir, StageData.hadoopConf());
            return new GptLanguageModel(loaded.decoder(), loaded.tokenizer());
        } catch (IOException e) {
            String m = e.getMessage();
            throw new UncheckedIOException(m != null && m.contains(dir) ? m : dir + ": " + m, e);
        }
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
    public ScoringParamSet scoringParamSet() {
        return scoringParams;
    }

    @Override
    public GenerationParamSet generationParamSet() {
        return generationParams;
    }

    /**
     * The decoder.
     *
     * @return the decoder (shared, not copied)
     * @throws IllegalStateException for an empty model
     */
    public GptDecoder decoder() {
        if (decoder == null) {
            throw new IllegalStateException("GptLanguageModel " + uid + " has no decoder; build it with "
                + "GptLanguageModel.fromDirectory or load");
        }
        return decoder;
    }

    /** @return whether the model comes from a fit in this JVM and so has its {@link #summary()} */
    public boolean hasSummary() {
        return summary != null;
    }

    /**
     * @return the training summary of the {@link GptLanguageModeler} fit that made this model
     * @throws IllegalStateException for a model read from files
     */
    public GptLanguageModelSummary summary() {
        if (summary == null) {
            throw new IllegalStateException("GptLanguageModel " + uid + " has no training summary: it was read, not fit");
        }
        return summary;
    }

    /** Attaches the fit's summary (by {@link GptLanguageModeler}). */
    GptLanguageModel withSummary(GptLanguageModelSummary fitted) {
        this.summary = fitted;
        return this;
    }

    /** @return whether the model has a tokenizer, so that {@link #generate} can write text */
    public boolean hasTokenizer() {
        return tokenizer != null;
    }

    /** @return a copy of the tokenizer.json's bytes, or null without a tokenizer */
    public byte[] tokenizerJson() {
        return tokenizer == null ? null : tokenizer.clone();
    }

    @Override
    public StructType transformSchema(StructType schema) {
        decoder();
        LanguageModelSchema.checkIds(schema, getInputCol());
        resolvedStride();
        return LanguageModelSchema.scored(schema, this);
    }

    /** The schema {@link #generate} gives: the input's columns, then the new ids and, with a tokenizer, the text. */
    public StructType generateSchema(StructType schema) {
        decoder();
        LanguageModelSchema.checkIds(schema, getInputCol());
        GeneratePartition.settings(this);
        return LanguageModelSchema.generated(schema, this, writesText());
    }

    /**
     * Scores every row: the input's columns, then {@code log_prob}, {@code tokens},
     * {@code perplexity} and, with {@code tokenLogProbs}, each token's log-probability; rows in their
     * order. Like {@code Dataset.rdd}, this plans the input.
     */
    @Override
    public Dataset<Row> transform(Dataset<?> dataset) {
        StructType out = transformSchema(dataset.schema(), true);
        Dataset<Row> df = input(dataset);
        StructType schema = df.schema();
        int id = getRowIdCol().isEmpty() ? -1 : schema.fieldIndex(getRowIdCol());
        ScorePartition score = new ScorePartition(shipped(df), ids(schema), batches(), resolvedStride(), getTokenLogProbs(),
            schema.fieldIndex(getInputCol()), id, id < 0 ? null : schema.fields()[id].dataType());
        return InternalFrames.frame(df, InternalFrames.rows(df).toJavaRDD().mapPartitionsWithIndex(score, true).rdd(),
            out);
    }

    /**
     * Continues every row's ids: the input's columns, then {@code generated_ids} and, when the model
     * has a tokenizer and {@code generatedTextCol} is set, {@code generated_text}; rows in their
     * order. A row's sampling is keyed by {@code rowKeyCol}'s value, or (without one) by its position
     * in the input, which costs one job counting each partition's rows.
     *
     * @param dataset rows with the {@code inputCol} ids
     * @return the rows with the generated columns
     * @throws IllegalArgumentException naming the param or column that does not fit
     */
    public Dataset<Row> generate(Dataset<?> dataset) {
        StructType out = generateSchema(dataset.schema());
        Dataset<Row> df = input(dataset);
        StructType schema = df.schema();
        JavaRDD<InternalRow> rows = InternalFrames.rows(df).toJavaRDD();
        GeneratePartition.Layout layout = GeneratePartition.Layout.of(schema, this);
        long[] starts = layout.keyIndex() >= 0 ? null : InputRows.partitionStarts(rows);
        TextDecoder text = writesText() ? new TextDecoder(shippedTokenizer().get(df.sparkSession().sparkContext()),
            NativeTokenizers.contentHash(tokenizer)) : null;
        GeneratePartition generate = new GeneratePartition(shipped(df), text, ids(schema), batches(),
            GeneratePartition.settings(this), layout, starts);
        return InternalFrames.frame(df, rows.mapPartitionsWithIndex(generate, true).rdd(), out);
    }

    /**
     * Reads every row's ids as {@link #transform} ({@code prompts} false) or {@link #generate}
     * ({@code prompts} true) would, without running the decoder: one job that fails on the first
     * bad row with the error the work would give (naming the row, column and position), so that a
     * bad input is refused before any work is spent on it.
     *
     * @param dataset the rows
     * @param prompts whether the rows are prompts (at least one id; short enough for maxNewTokens)
     * @return the number of rows (after {@code handleInvalid = skip})
     */
    public long checkRows(Dataset<?> dataset, boolean prompts) {
        StructType schema = prompts ? generateSchema(dataset.schema()) : transformSchema(dataset.schema());
        Dataset<Row> df = input(dataset);
        schema = df.schema();
        TokenIds ids = ids(schema);
        GeneratePartition.Layout layout = GeneratePartition.Layout.of(schema, this);
        int idsAt = layout.idsIndex();
        InputRows.Reader read = prompts ? GeneratePartition.reader(layout, ids)
            : row -> ids.read(row.isNullAt(idsAt) ? null : row.getArray(idsAt), 0, Integer.MAX_VALUE, "");
        return InputRows.check(InternalFrames.rows(df).toJavaRDD(), read, layout.rowIdIndex(), layout.rowIdType());
    }

    /** Whether {@link #generate} writes text: a tokenizer and a text column. */
    boolean writesText() {
        return tokenizer != null && !getGeneratedTextCol().isEmpty();
    }

    /** The input as a DataFrame, without its null-id rows when they are skipped. */
    private Dataset<Row> input(Dataset<?> dataset) {
        Dataset<Row> df = dataset.toDF();
        if (df.isStreaming()) {
            throw new IllegalArgumentException("GptLanguageModel " + uid + " runs on batch DataFrames; a streaming "
                + "DataFrame's rows can go through foreachBatch");
        }
        return "skip".equals(getHandleInvalid()) ? df.filter(inputColumn().isNotNull()) : df;
    }

    private TokenIds ids(StructType schema) {
        boolean longIds = ((ArrayType) schema.apply(getInputCol()).dataType()).elementType().equals(DataTypes.LongType);
        return new TokenIds(getInputCol(), longIds, "error".equals(getHandleInvalid()), decoder().config().vocabSize());
    }

    private EncoderBatches batches() {
        return new EncoderBatches(getBatchRows(), getBatchTokens());
    }

    /** The sliding window's stride, resolved against the model's positions. */
    int resolvedStride() {
        int positions = decoder().config().positions();
        int stride = getStride();
        if (stride > positions) {
            throw new IllegalArgumentException("stride " + stride + " is more than the model's " + positions
                + " positions (the window)");
        }
        return stride == ScoringParamSet.HALF_WINDOW ? (positions + 1) / 2 : stride;
    }

    private Broadcast<Shipped<GptDecoder>> shipped(Dataset<Row> df) {
        return shipped().get(df.sparkSession().sparkContext());
    }

    private synchronized ContextBroadcast<Shipped<GptDecoder>> shipped() {
        if (shipped == null) {
            shipped = new ContextBroadcast<>(() -> Shipped.of(decoder()));
        }
        return shipped;
    }

    private synchronized ContextBroadcast<byte[]> shippedTokenizer() {
        if (shippedTokenizer == null) {
            shippedTokenizer = new ContextBroadcast<>(() -> tokenizer);
        }
        return shippedTokenizer;
    }

    @Override
    public GptLanguageModel copy(ParamMap extra) {
        GptLanguageModel copied = copyValues(new GptLanguageModel(uid, decoder, tokenizer), extra);
        copied.shipped = shipped();
        copied.shippedTokenizer = shippedTokenizer();
        copied.summary = summary;
        return copied.setParent(parent());
    }

    @Override
    public MLWriter write() {
        return StageData.writer(this, (path, conf) -> LanguageModelFiles.write(decoder(), tokenizer,
            dataDir(path), conf));
    }

    /**
     * Reader for {@link #load}.
     *
     * @return the reader of params metadata and the model directory under {@code data}
     */
    public static MLReader<GptLanguageModel> read() {
        return StageData.reader(List.of(GptLanguageModel.class.getName()), (uid, path, conf) -> {
            LanguageModelFiles.Loaded loaded = LanguageModelFiles.read(dataDir(path), conf);
            return new GptLanguageModel(uid, loaded.decoder(), loaded.tokenizer());
        });
    }

    /** A saved model's {@code data} directory: the Hugging Face model directory. */
    private static String dataDir(String path) {
        return new org.apache.hadoop.fs.Path(path, StageData.DATA_DIR).toString();
    }

    /**
     * Loads a model saved with {@code write().save(path)}.
     *
     * @param path the directory the model was saved to
     * @return the model, with its uid, params, weights and tokenizer
     */
    public static GptLanguageModel load(String path) {
        return read().load(path);
    }

    @Override
    public String toString() {
        if (decoder == null) {
            return "GptLanguageModel: uid=" + uid + ", no decoder";
        }
        GptConfig c = decoder.config();
        return "GptLanguageModel: uid=" + uid + ", layers=" + c.layers() + ", hidden=" + c.hidden() + ", heads="
            + c.heads() + ", positions=" + c.positions() + ", vocab=" + c.vocabSize()
            + (tokenizer == null ? "" : ", with a tokenizer");
    }
}

package io.sparkattention.ml.feature;

import io.sparkattention.exec.RowFunctions;
import io.sparkattention.ml.ContextBroadcast;
import io.sparkattention.ml.StageData;
import io.sparkattention.ml.StageParamSet;
import io.sparkattention.ml.StageParams;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.ml.Transformer;
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
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A Hugging Face tokenizer ({@code tokenizer.json}, run by Hugging Face's Rust tokenizers through
 * DJL) as a pipeline stage: a text column in, {@code input_ids} ({@code array<int>}) out, and
 * optionally the WordPiece {@code tokens} ({@code array<string>}, for pictures) and whether the
 * text was truncated ({@code boolean}).
 *
 * <pre>{@code
 * Dataset<Row> ids = HuggingFaceTokenizer.pretrained("all-minilm-l6-v2")
 *     .setInputCol("text").setOutputCol("input_ids").setMaxLength(256)
 *     .transform(texts);
 * }</pre>
 *
 * <p>The special tokens are added as the file's post-processor says ({@code [CLS] … [SEP]} for
 * BERT: an empty text gives those two; none for GPT-2's byte-level BPE, whose
 * {@code <|endoftext|>} in a text stays one id), nothing is padded, and a text longer than {@code maxLength} tokens (special tokens included) is
 * truncated there — explicitly: DJL's own default silently takes the file's limit. A decoder's
 * texts take {@link #NO_TRUNCATION}. A null text
 * follows {@code handleInvalid}: {@code error} (the default; the error names column and row),
 * {@code skip} (the row is dropped) or {@code keep} (null outputs).
 *
 * <p>The tokenizer file travels with the stage: to executors by one broadcast per SparkContext
 * ({@link ContextBroadcast}, shared by the stage's copies), where each JVM builds
 * its native tokenizer once per file (keyed by the file's content hash) and shares it between
 * tasks; and into a saved stage or {@code Pipeline}, under {@code data/tokenizer.json}, so a saved
 * pipeline is self-contained. DJL loads the native library bundled in its jar and is kept offline
 * (see {@link NativeTokenizers}). Works row by row, so it runs unchanged on streaming DataFrames.
 */
public final class HuggingFaceTokenizer extends Transformer
    implements MLWritable, StageParams<HuggingFaceTokenizer> {

    private static final long serialVersionUID = 1L;

    /** The tokenizer file under a saved stage's {@code data} directory. */
    static final String TOKENIZER_FILE = "tokenizer.json";
    /** sentence-transformers' limit for all-MiniLM-L6-v2, and the default of {@code maxLength}. */
    public static final int DEFAULT_MAX_LENGTH = 256;
    /**
     * The smallest {@code maxLength}: the special tokens count ([CLS] and [SEP] for BERT), and the
     * native tokenizer ignores a limit that leaves no room for them, writing the text untruncated.
     */
    public static final int MIN_MAX_LENGTH = 2;
    /**
     * The {@code maxLength} that truncates nothing: for a decoder's texts, which a language model
     * scores whole (a sliding window past its positions) and whose prompts it refuses or
     * left-truncates itself, where a silent cut at {@value #DEFAULT_MAX_LENGTH} tokens would change
     * the numbers.
     */
    public static final int NO_TRUNCATION = Integer.MAX_VALUE;

    private final String uid;
    /** The tokenizer.json's bytes, or null for the empty stage Spark Connect's service loader builds. */
    private final byte[] json;
    private final String hash;
    /** What the file is (its path, or the bundled model's name), for messages. */
    private final String source;
    private StageParamSet stageParams;
    private Param<String> tokensCol;
    private Param<String> truncatedCol;
    private IntParam maxLength;
    /** The file shipped to executors, once per SparkContext; shared with the stage's copies. */
    private transient ContextBroadcast<byte[]> shipped;

    /**
     * An empty stage, without a tokenizer: what Spark Connect ML's service loader instantiates to
     * list the stage. {@link #transform} refuses it; use {@link #fromPath}, {@link #fromBytes},
     * {@link #pretrained} or {@link #load}.
     */
    public HuggingFaceTokenizer() {
        this(Identifiable$.MODULE$.randomUID("hfTokenizer"), null, "no tokenizer");
    }

    /**
     * A stage with the given uid and tokenizer file (used by the factories, persistence and {@link #copy}).
     *
     * @param uid    the stage's uid
     * @param json   the tokenizer.json's bytes; parsed here, so a malformed file fails now
     * @param source what the file is (a path, a model name), named in errors
     * @throws IllegalArgumentException naming {@code source} when the bytes are not a tokenizer
     */
    public HuggingFaceTokenizer(String uid, byte[] json, String source) {
        this.uid = Objects.requireNonNull(uid, "uid");
        this.json = json;
        this.source = Objects.requireNonNull(source, "source");
        this.hash = json == null ? null : NativeTokenizers.contentHash(json);
        init();
        if (json != null) {
            NativeTokenizers.get(hash, getMaxLength(), () -> json, source);
        }
    }

    /**
     * The tokenizer in a {@code tokenizer.json} file on any Hadoop file system.
     *
     * @param path a local path, or {@code hdfs://}, {@code s3a://}...
     * @return the stage
     * @throws UncheckedIOException naming the file when it cannot be read
     * @throws IllegalArgumentException naming the file when it is not a Hugging Face tokenizer
     */
    public static HuggingFaceTokenizer fromPath(String path) {
        return new HuggingFaceTokenizer(Identifiable$.MODULE$.randomUID("hfTokenizer"),
            StageData.readBytes(path, StageData.hadoopConf()), path);
    }

    /**
     * The tokenizer in a {@code tokenizer.json}'s bytes.
     *
     * @param json the file's bytes
     * @return the stage
     * @throws IllegalArgumentException when they are not a Hugging Face tokenizer
     */
    public static HuggingFaceTokenizer fromBytes(byte[] json) {
        return new HuggingFaceTokenizer(Identifiable$.MODULE$.randomUID("hfTokenizer"),
            Objects.requireNonNull(json, "json").clone(), "tokenizer.json bytes");
    }

    /**
     * The tokenizer of a model bundled on the class path (see
     * {@link io.sparkattention.io.BundledModels}), e.g. {@code "all-minilm-l6-v2"}.
     *
     * @param name the model's name
     * @return the stage
     * @throws IllegalArgumentException for an unknown name
     * @throws IllegalStateException naming the artifact to add when the model is not on the class path
     */
    public static HuggingFaceTokenizer pretrained(String name) {
        return new HuggingFaceTokenizer(Identifiable$.MODULE$.randomUID("hfTokenizer"),
            io.sparkattention.io.BundledModels.tokenizerJson(name), name + " tokenizer.json");
    }

    private void init() {
        stageParams = new StageParamSet(this, "input column: the texts (string)", "text",
            "output column: the token ids (array<int>), special tokens included", "input_ids",
            "null texts: error (fail naming the row), skip (drop the row) or keep (null outputs)",
            StageParamSet.NULL_HANDLING);
        tokensCol = new Param<>(this, "tokensCol",
            "optional output column: the tokens as strings (array<string>); empty for none");
        truncatedCol = new Param<>(this, "truncatedCol",
            "optional output column: whether the text was truncated at maxLength (boolean); empty for none");
        maxLength = new IntParam(this, "maxLength",
            "the longest output in tokens, special tokens included (at least " + MIN_MAX_LENGTH + ": [CLS] and [SEP]); "
                + "longer texts are truncated", ParamValidators.gtEq(MIN_MAX_LENGTH));
        setDefault(tokensCol, "");
        setDefault(truncatedCol, "");
        setDefault(maxLength, DEFAULT_MAX_LENGTH);
    }

    @Override
    public String uid() {
        return uid;
    }

    @Override
    public StageParamSet stageParamSet() {
        return stageParams;
    }

    /** @return the tokens column param (default empty: no such column) */
    public Param<String> tokensCol() {
        return tokensCol;
    }

    /** @return the tokens column, or empty */
    public String getTokensCol() {
        return getOrDefault(tokensCol);
    }

    /**
     * @param value the tokens' column ({@code array<string>}), or empty for none
     * @return this stage
     */
    public HuggingFaceTokenizer setTokensCol(String value) {
        set(tokensCol, value);
        return this;
    }

    /** @return the truncated column param (default empty: no such column) */
    public Param<String> truncatedCol() {
        return truncatedCol;
    }

    /** @return the truncated column, or empty */
    public String getTruncatedCol() {
        return getOrDefault(truncatedCol);
    }

    /**
     * @param value a boolean column telling whether each text was truncated, or empty for none
     * @return this stage
     */
    public HuggingFaceTokenizer setTruncatedCol(String value) {
        set(truncatedCol, value);
        return this;
    }

    /** @return the maximum length param (default {@value #DEFAULT_MAX_LENGTH}) */
    public IntParam maxLength() {
        return maxLength;
    }

    /** @return the longest output in tokens */
    public int getMaxLength() {
        return (Integer) getOrDefault(maxLength);
    }

    /**
     * @param value the longest output in tokens, special tokens included (at least {@value #MIN_MAX_LENGTH})
     * @return this stage
     * @throws IllegalArgumentException naming the param and the value when it is below {@value #MIN_MAX_LENGTH}
     */
    public HuggingFaceTokenizer setMaxLength(int value) {
        if (value < MIN_MAX_LENGTH) {
            throw new IllegalArgumentException(uid + " parameter maxLength given invalid value " + value + ": at least "
                + MIN_MAX_LENGTH + " (the ids count [CLS] and [SEP])");
        }
        set(maxLength, value);
        return this;
    }

    /**
     * The tokenizer file.
     *
     * @return a copy of the tokenizer.json's bytes
     * @throws IllegalStateException for the empty stage
     */
    public byte[] tokenizerJson() {
        return requireTokenizer().clone();
    }

    private byte[] requireTokenizer() {
        if (json == null) {
            throw new IllegalStateException("HuggingFaceTokenizer " + uid + " has no tokenizer; build it with "
                + "HuggingFaceTokenizer.fromPath, fromBytes, pretrained or load");
        }
        return json;
    }

    /** The output columns in order: ids, then tokens and truncated when asked for. */
    private List<StructField> outputFields() {
        List<StructField> out = new ArrayList<>();
        out.add(new StructField(getOutputCol(), TokenizeFunction.RESULT.apply(TokenizeFunction.IDS).dataType(),
            true, Metadata.empty()));
        if (!getTokensCol().isEmpty()) {
            out.add(new StructField(getTokensCol(), TokenizeFunction.RESULT.apply(TokenizeFunction.TOKENS).dataType(),
                true, Metadata.empty()));
        }
        if (!getTruncatedCol().isEmpty()) {
            out.add(new StructField(getTruncatedCol(), DataTypes.BooleanType, true,
                Metadata.empty()));
        }
        return out;
    }

    @Override
    public StructType transformSchema(StructType schema) {
        requireTokenizer();
        String input = getInputCol();
        if (!Arrays.asList(schema.fieldNames()).contains(input)) {
            throw new IllegalArgumentException("column " + input + " (inputCol) does not exist; the input has "
                + String.join(", ", schema.fieldNames()));
        }
        if (!schema.apply(input).dataType().equals(DataTypes.StringType)) {
            throw new IllegalArgumentException("column " + input + " (inputCol): expected string, found "
                + schema.apply(input).dataType().simpleString());
        }
        Set<String> existing = new HashSet<>(Arrays.asList(schema.fieldNames()));
        StructType result = schema;
        for (StructField f : outputFields()) {
            if (!existing.add(f.name())) {
                throw new IllegalArgumentException("output column " + f.name() + " already exists in the input "
                    + "or is named twice (outputCol, tokensCol, truncatedCol)");
            }
            result = result.add(f);
        }
        return result;
    }

    @Override
    public Dataset<Row> transform(Dataset<?> dataset) {
        transformSchema(dataset.schema(), true);
        Column text = inputColumn();
        String mode = getHandleInvalid();
        Broadcast<byte[]> file = shipped().get(dataset.sparkSession().sparkContext());
        TokenizeFunction function = new TokenizeFunction(file, hash, source, getMaxLength(), !getTokensCol().isEmpty(),
            getInputCol(), "error".equals(mode));
        Dataset<Row> df = dataset.toDF();
        if ("skip".equals(mode)) {
            df = df.filter(text.isNotNull());
        }
        String encoded = uid + "__encoding";
        df = df.withColumn(encoded, RowFunctions.column("hf_tokenize", function, TokenizeFunction.RESULT,
            rowIdColumn(), List.of(text)));
        Column encoding = StageParams.column(encoded);
        df = df.withColumn(getOutputCol(), encoding.getField(TokenizeFunction.IDS));
        if (!getTokensCol().isEmpty()) {
            df = df.withColumn(getTokensCol(), encoding.getField(TokenizeFunction.TOKENS));
        }
        if (!getTruncatedCol().isEmpty()) {
            df = df.withColumn(getTruncatedCol(), encoding.getField(TokenizeFunction.TRUNCATED));
        }
        return df.drop(encoded);
    }

    private synchronized ContextBroadcast<byte[]> shipped() {
        if (shipped == null) {
            shipped = new ContextBroadcast<>(this::requireTokenizer);
        }
        return shipped;
    }

    @Override
    public HuggingFaceTokenizer copy(ParamMap extra) {
        HuggingFaceTokenizer copied = copyValues(new HuggingFaceTokenizer(uid, json, source), extra);
        copied.shipped = shipped();
        return copied;
    }

    /** Params as MLlib metadata, the tokenizer file as {@code data/tokenizer.json}. */
    @Override
    public MLWriter write() {
        return StageData.writer(this, (path, conf) -> StageData.write(StageData.dataFile(path, TOKENIZER_FILE), conf,
            out -> out.write(requireTokenizer())));
    }

    /**
     * Reader for {@link #load}.
     *
     * @return the reader of the params metadata and the tokenizer file
     */
    public static MLReader<HuggingFaceTokenizer> read() {
        return StageData.reader(List.of(HuggingFaceTokenizer.class.getName()), (uid, path, conf) -> {
            String file = StageData.dataFile(path, TOKENIZER_FILE);
            return new HuggingFaceTokenizer(uid, StageData.readBytes(file, conf), file);
        });
    }

    /**
     * Loads a stage saved with {@code write().save(path)}.
     *
     * @param path the directory it was saved to
     * @return the stage, with its uid, params and tokenizer file
     */
    public static HuggingFaceTokenizer load(String path) {
        return read().load(path);
    }

    @Override
    public String toString() {
        return "HuggingFaceTokenizer: uid=" + uid + ", " + source;
    }
}

package io.sparkattention.ml.feature;

import io.sparkattention.ml.StageSchema;
import io.sparkattention.nn.RotaryEncoding;
import io.sparkattention.sparkinternal.ParamsMetadata;
import org.apache.spark.ml.Transformer;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.param.ParamValidators;
import org.apache.spark.ml.util.DefaultParamsWritable;
import org.apache.spark.ml.util.Identifiable$;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Rotary positional encoding (RoPE) of the query and key columns, in the half-split layout of
 * GPT-NeoX and Llama: each head's slice {@code [x1, x2]} (halves of {@code head_dim}) at position
 * {@code m} becomes {@code [x1·cos − x2·sin, x2·cos + x1·sin]} with angles {@code m·θ_i},
 * {@code θ_i = base^(−2i/head_dim)}. See {@link RotaryEncoding}.
 *
 * <p>The query's width is split into {@code numHeads} heads, the key's into {@code numKvHeads}
 * (0: {@code numHeads}); {@code head_dim} must be even. With {@code keyCol} empty (the default)
 * only the query is rotated — the self-attention case, where the attention stage reads the key
 * from the query column. Positions start at {@code positionOffset} for both (decoding against a
 * cache rotates new queries from the cache's length).
 *
 * <pre>{@code
 * Dataset<Row> rotated = new RotaryPositionalEncoding()
 *     .setQueryCol("q").setKeyCol("k").setQueryOutputCol("q_rope").setKeyOutputCol("k_rope")
 *     .setNumHeads(8)
 *     .transform(projected);
 * }</pre>
 *
 * <p>Input: {@code array<array<float>>}, {@code array<array<double>>} or {@code array<vector>};
 * output {@code array<array<float>>}; a null input gives null. Row by row, so it runs unchanged on
 * streaming DataFrames.
 */
public final class RotaryPositionalEncoding extends Transformer
    implements PositionalEncodingParams<RotaryPositionalEncoding>, DefaultParamsWritable {

    private static final long serialVersionUID = 1L;

    private final String uid;
    private PositionalEncodingParamSet shared;
    private Param<String> queryCol;
    private Param<String> keyCol;
    private Param<String> queryOutputCol;
    private Param<String> keyOutputCol;
    private IntParam numHeads;
    private IntParam numKvHeads;

    /** A stage with a random uid. */
    public RotaryPositionalEncoding() {
        this(Identifiable$.MODULE$.randomUID("rope"));
    }

    /**
     * A stage with the given uid (used by persistence and {@link #copy}).
     *
     * @param uid the stage's uid
     */
    public RotaryPositionalEncoding(String uid) {
        this.uid = uid;
        init();
    }

    private void init() {
        shared = new PositionalEncodingParamSet(this, "frequency base: θ_i = base^(-2i/head_dim)",
            RotaryEncoding.DEFAULT_BASE);
        queryCol = new Param<>(this, "queryCol", "query column: array<array<float|double>> or array<vector>, L×E");
        keyCol = new Param<>(this, "keyCol", "key column (S×Ekv); empty: only the query is rotated");
        queryOutputCol = new Param<>(this, "queryOutputCol", "rotated query column: array<array<float>>");
        keyOutputCol = new Param<>(this, "keyOutputCol", "rotated key column: array<array<float>>");
        numHeads = new IntParam(this, "numHeads", "query heads: head_dim = E / numHeads, which must be even",
            ParamValidators.gtEq(1));
        numKvHeads = new IntParam(this, "numKvHeads", "key heads (grouped-query attention); 0: numHeads",
            ParamValidators.gtEq(0));
        setDefault(queryCol, "query");
        setDefault(keyCol, "");
        setDefault(queryOutputCol, uid + "__query");
        setDefault(keyOutputCol, uid + "__key");
        setDefault(numHeads, 1);
        setDefault(numKvHeads, 0);
    }

    @Override
    public String uid() {
        return uid;
    }

    @Override
    public PositionalEncodingParamSet positionalEncodingParamSet() {
        return shared;
    }

    /** @return the query column param (default {@code query}) */
    public Param<String> queryCol() {
        return queryCol;
    }

    /** @return the query column */
    public String getQueryCol() {
        return getOrDefault(queryCol);
    }

    /**
     * @param value the query column
     * @return this stage
     */
    public RotaryPositionalEncoding setQueryCol(String value) {
        set(queryCol, value);
        return this;
    }

    /** @return the key column param (default empty: no key is rotated) */
    public Param<String> keyCol() {
        return keyCol;
    }

    /** @return the key column, or empty */
    public String getKeyCol() {
        return getOrDefault(keyCol);
    }

    /**
     * @param value the key column, or empty
     * @return this stage
     */
    public RotaryPositionalEncoding setKeyCol(String value) {
        set(keyCol, value);
        return this;
    }

    /** @return the rotated query column param (default {@code <uid>__query}) */
    public Param<String> queryOutputCol() {
        return queryOutputCol;
    }

    /** @return the rotated query column */
    public String getQueryOutputCol() {
        return getOrDefault(queryOutputCol);
    }

    /**
     * @param value the rotated query column; must not exist in the input
     * @return this stage
     */
    public RotaryPositionalEncoding setQueryOutputCol(String value) {
        set(queryOutputCol, value);
        return this;
    }

    /** @return the rotated key column param (default {@code <uid>__key}; unused without a key column) */
    public Param<String> keyOutputCol() {
        return keyOutputCol;
    }

    /** @return the rotated key column */
    public String getKeyOutputCol() {
        return getOrDefault(keyOutputCol);
    }

    /**
     * @param value the rotated key column; must not exist in the input
     * @return this stage
     */
    public RotaryPositionalEncoding setKeyOutputCol(String value) {
        set(keyOutputCol, value);
        return this;
    }

    /** @return the query heads param (default 1) */
    public IntParam numHeads() {
        return numHeads;
    }

    /** @return the number of query heads */
    public int getNumHeads() {
        return (Integer) getOrDefault(numHeads);
    }

    /**
     * @param value query heads, at least 1
     * @return this stage
     */
    public RotaryPositionalEncoding setNumHeads(int value) {
        set(numHeads, value);
        return this;
    }

    /** @return the key heads param (default 0: {@code numHeads}) */
    public IntParam numKvHeads() {
        return numKvHeads;
    }

    /** @return the number of key heads, 0 meaning {@code numHeads} */
    public int getNumKvHeads() {
        return (Integer) getOrDefault(numKvHeads);
    }

    /**
     * @param value key heads, or 0 for {@code numHeads}
     * @return this stage
     */
    public RotaryPositionalEncoding setNumKvHeads(int value) {
        set(numKvHeads, value);
        return this;
    }

    private boolean rotatesKey() {
        return !getKeyCol().isEmpty();
    }

    private int effectiveNumKvHeads() {
        return getNumKvHeads() == 0 ? getNumHeads() : getNumKvHeads();
    }

    @Override
    public StructType transformSchema(StructType schema) {
        StructField queryOutput = MatrixFunction.outputField(schema, getQueryCol(), "queryCol", getQueryOutputCol());
        StageSchema.checkNewColumn(schema, getQueryOutputCol());
        StructType out = schema.add(queryOutput);
        if (rotatesKey()) {
            StructField keyOutput = MatrixFunction.outputField(schema, getKeyCol(), "keyCol", getKeyOutputCol());
            if (getKeyOutputCol().equals(getQueryOutputCol())) {
                throw new IllegalArgumentException("queryOutputCol and keyOutputCol are both " + getKeyOutputCol());
            }
            StageSchema.checkNewColumn(schema, getKeyOutputCol());
            out = out.add(keyOutput);
        }
        return out;
    }

    @Override
    public Dataset<Row> transform(Dataset<?> dataset) {
        StructType schema = dataset.schema();
        transformSchema(schema, true);
        Dataset<Row> out = rotate(dataset.toDF(), schema, getQueryCol(), "queryCol", getQueryOutputCol(), getNumHeads());
        if (rotatesKey()) {
            out = rotate(out, schema, getKeyCol(), "keyCol", getKeyOutputCol(), effectiveNumKvHeads());
        }
        return out;
    }

    private Dataset<Row> rotate(Dataset<Row> df, StructType schema, String input, String param, String output,
                                int heads) {
        RotaryEncoding rope = new RotaryEncoding(getBase());
        long offset = getPositionOffset();
        return MatrixFunction.withColumn(df, schema, "rotary_encoding", input, param, output, getHandleInvalid(),
            (x, rows, cols) -> rope.rotate(x, rows, cols, heads, offset));
    }

    @Override
    public RotaryPositionalEncoding copy(ParamMap extra) {
        return defaultCopy(extra);
    }

    /**
     * Reader for {@link #load}.
     *
     * @return MLlib's default params reader
     */
    public static MLReader<RotaryPositionalEncoding> read() {
        return ParamsMetadata.reader();
    }

    /**
     * Loads a stage saved with {@code write().save(path)}.
     *
     * @param path the directory it was saved to
     * @return the stage
     */
    public static RotaryPositionalEncoding load(String path) {
        return read().load(path);
    }
}

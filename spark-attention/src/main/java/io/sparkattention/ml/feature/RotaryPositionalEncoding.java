package io.sparkattention.ml.feature;

import io.sparkattention.ml.HeadParamSet;
import io.sparkattention.ml.HeadParams;
import io.sparkattention.ml.InvalidRowParams;
import io.sparkattention.ml.StageParamSet;
import io.sparkattention.ml.StageSchema;
import io.sparkattention.nn.RotaryEncoding;
import io.sparkattention.sparkinternal.ParamsMetadata;
import org.apache.spark.ml.Transformer;
import org.apache.spark.ml.param.ParamMap;
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
    implements RotaryParams<RotaryPositionalEncoding>, HeadParams<RotaryPositionalEncoding>,
    PositionalEncodingParams<RotaryPositionalEncoding>, InvalidRowParams<RotaryPositionalEncoding>,
    DefaultParamsWritable {

    private static final long serialVersionUID = 1L;

    private final String uid;
    private PositionalEncodingParamSet shared;
    private RotaryParamSet columns;
    private HeadParamSet heads;
    private StageParamSet rows;

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
        columns = new RotaryParamSet(this);
        heads = new HeadParamSet(this, "query heads: head_dim = E / numHeads, which must be even",
            "key heads (grouped-query attention); 0: numHeads");
        rows = StageParamSet.invalidRowsOnly(this, StageParamSet.NON_FINITE_DOC, StageParamSet.NON_FINITE_HANDLING);
    }

    @Override
    public String uid() {
        return uid;
    }

    @Override
    public PositionalEncodingParamSet positionalEncodingParamSet() {
        return shared;
    }

    @Override
    public RotaryParamSet rotaryParamSet() {
        return columns;
    }

    @Override
    public HeadParamSet headParamSet() {
        return heads;
    }

    @Override
    public StageParamSet stageParamSet() {
        return rows;
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
        StageSchema.rowIdCol(this, schema);
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
        return MatrixFunction.withColumn(df, schema, "rotary_encoding", input, param, output, this,
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

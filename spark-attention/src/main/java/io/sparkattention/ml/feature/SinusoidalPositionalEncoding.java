package io.sparkattention.ml.feature;

import io.sparkattention.ml.StageParamSet;
import io.sparkattention.ml.StageParams;
import io.sparkattention.ml.StageSchema;
import io.sparkattention.nn.SinusoidalEncoding;
import io.sparkattention.sparkinternal.ParamsMetadata;
import org.apache.spark.ml.Transformer;
import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.DefaultParamsWritable;
import org.apache.spark.ml.util.Identifiable$;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Adds the sinusoidal positional encoding of "Attention Is All You Need" to each row's sequence
 * (L×d, one position per row of the matrix, starting at {@code positionOffset}), or outputs the
 * encoding alone ({@code addToInput = false}):
 * {@code PE[pos, 2i] = sin(pos / base^(2i/d))}, {@code PE[pos, 2i+1] = cos(pos / base^(2i/d))}.
 * See {@link SinusoidalEncoding}.
 *
 * <pre>{@code
 * Dataset<Row> positioned = new SinusoidalPositionalEncoding()
 *     .setInputCol("embeddings").setOutputCol("query")
 *     .transform(tokens);
 * }</pre>
 *
 * <p>Input: {@code array<array<float>>}, {@code array<array<double>>} or {@code array<vector>};
 * output {@code array<array<float>>}; rows may differ in L and d; a null input gives null. Works
 * row by row, so it runs unchanged on streaming DataFrames.
 */
public final class SinusoidalPositionalEncoding extends Transformer
    implements StageParams<SinusoidalPositionalEncoding>, PositionalEncodingParams<SinusoidalPositionalEncoding>,
    DefaultParamsWritable {

    private static final long serialVersionUID = 1L;

    private final String uid;
    private PositionalEncodingParamSet shared;
    private StageParamSet columns;
    private BooleanParam addToInput;

    /** A stage with a random uid. */
    public SinusoidalPositionalEncoding() {
        this(Identifiable$.MODULE$.randomUID("sinusoidalPE"));
    }

    /**
     * A stage with the given uid (used by persistence and {@link #copy}).
     *
     * @param uid the stage's uid
     */
    public SinusoidalPositionalEncoding(String uid) {
        this.uid = uid;
        init();
    }

    private void init() {
        shared = new PositionalEncodingParamSet(this, "wavelength base (10000 in the paper)",
            SinusoidalEncoding.DEFAULT_BASE);
        columns = new StageParamSet(this,
            "input column: array<array<float|double>> or array<vector>, one position per matrix row", "embeddings",
            "output column: array<array<float>>, the input's shape", uid + "__output",
            StageParamSet.NON_FINITE_DOC, StageParamSet.NON_FINITE_HANDLING);
        addToInput = new BooleanParam(this, "addToInput",
            "output input + encoding (true) or the encoding alone, shaped like the input (false)");
        setDefault(addToInput, true);
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
    public StageParamSet stageParamSet() {
        return columns;
    }

    /** @return the param choosing input + encoding (default true) or the encoding alone */
    public BooleanParam addToInput() {
        return addToInput;
    }

    /** @return whether the encoding is added to the input */
    public boolean getAddToInput() {
        return (Boolean) getOrDefault(addToInput);
    }

    /**
     * @param value true: input + encoding; false: the encoding alone
     * @return this stage
     */
    public SinusoidalPositionalEncoding setAddToInput(boolean value) {
        set(addToInput, value);
        return this;
    }

    @Override
    public StructType transformSchema(StructType schema) {
        StructField output = MatrixFunction.outputField(schema, getInputCol(), "inputCol", getOutputCol());
        StageSchema.checkNewColumn(schema, getOutputCol());
        StageSchema.rowIdCol(this, schema);
        return schema.add(output);
    }

    @Override
    public Dataset<Row> transform(Dataset<?> dataset) {
        StructType schema = dataset.schema();
        transformSchema(schema, true);
        String input = getInputCol();
        SinusoidalEncoding encoding = new SinusoidalEncoding(getBase());
        long offset = getPositionOffset();
        MatrixFunction.Operation operation = getAddToInput()
            ? (x, rows, cols) -> encoding.addTo(x, rows, cols, offset)
            : (x, rows, cols) -> encoding.encoding(rows, cols, offset);
        return MatrixFunction.withColumn(dataset.toDF(), schema, "sinusoidal_encoding", input, "inputCol",
            getOutputCol(), this, operation);
    }

    @Override
    public SinusoidalPositionalEncoding copy(ParamMap extra) {
        return defaultCopy(extra);
    }

    /**
     * Reader for {@link #load}.
     *
     * @return MLlib's default params reader
     */
    public static MLReader<SinusoidalPositionalEncoding> read() {
        return ParamsMetadata.reader();
    }

    /**
     * Loads a stage saved with {@code write().save(path)}.
     *
     * @param path the directory it was saved to
     * @return the stage
     */
    public static SinusoidalPositionalEncoding load(String path) {
        return read().load(path);
    }
}

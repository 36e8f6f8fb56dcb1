package io.sparkattention.ml;

import io.sparkattention.exec.AttentionExecution;
import io.sparkattention.exec.Strategy;
import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.sparkinternal.ParamsMetadata;
import org.apache.spark.ml.Transformer;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.DefaultParamsWritable;
import org.apache.spark.ml.util.Identifiable$;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructType;

/**
 * Scaled dot-product attention over DataFrame rows: {@code softmax(scale·Q·Kᵀ + bias + mask)·V}
 * per row, where the query, key and value columns hold one sequence's L×E, S×E, S×Ev matrices
 * (no projections; see {@link MultiHeadAttentionModel} for PyTorch's layer). With
 * {@code numHeads} H, the last dimension is split into H heads as PyTorch lays them out.
 *
 * <pre>{@code
 * Dataset<Row> out = new ScaledDotProductAttention()
 *     .setQueryCol("q").setKeyCol("k").setValueCol("v")
 *     .setNumHeads(8).setCausal(true)
 *     .setWeightsCol("attn_weights")
 *     .transform(df);
 * }</pre>
 *
 * <p>Every input column is kept; {@code outputCol} (and {@code weightsCol}) are appended. A null
 * query gives a null output. Rows may differ in L and S.
 */
public final class ScaledDotProductAttention extends Transformer
    implements AttentionParams<ScaledDotProductAttention>, DefaultParamsWritable {

    private static final long serialVersionUID = 1L;

    private final String uid;
    private AttentionParamSet params;

    /** A stage with a random uid. */
    public ScaledDotProductAttention() {
        this(Identifiable$.MODULE$.randomUID("sdpa"));
    }

    /**
     * A stage with the given uid (used by persistence and {@link #copy}).
     *
     * @param uid the stage's uid
     */
    public ScaledDotProductAttention(String uid) {
        this.uid = uid;
        init();
    }

    private void init() {
        params = new AttentionParamSet(this);
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

    @Override
    public StructType transformSchema(StructType schema) {
        return StageSchema.transformSchema(this, schema);
    }

    @Override
    public Dataset<Row> transform(Dataset<?> dataset) {
        StructType schema = dataset.schema();
        transformSchema(schema, true);
        AttentionSpec spec = attentionSpec();
        AttentionStageJob.StageColumns columns = StageSchema.columns(this, schema);
        AttentionStageJob job = new AttentionStageJob(columns, new ScaledDotProductSource(spec, getNumHeads(), effectiveNumKvHeads()),
            spec, getNumHeads(), weightsMode(), "keep".equals(getHandleInvalid()),
            StageSchema.outputStruct(this, columns, null));
        return AttentionExecution.transform(dataset, job, Strategy.parse(getStrategy()));
    }

    @Override
    public ScaledDotProductAttention copy(ParamMap extra) {
        return defaultCopy(extra);
    }

    /**
     * Reader for {@link #load}.
     *
     * @return MLlib's default params reader
     */
    public static MLReader<ScaledDotProductAttention> read() {
        return ParamsMetadata.reader();
    }

    /**
     * Loads a stage saved with {@code write().save(path)}.
     *
     * @param path the directory it was saved to
     * @return the stage
     */
    public static ScaledDotProductAttention load(String path) {
        return read().load(path);
    }
}

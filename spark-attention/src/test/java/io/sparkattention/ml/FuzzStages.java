package io.sparkattention.ml;

import io.sparkattention.nn.MultiHeadAttentionInit;
import io.sparkattention.rows.SequenceLayout;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

import java.util.List;

/**
 * The stages and input schemas the row fuzz tests drive: every column an attention stage reads,
 * in each accepted depth and element type, as a JSON or Parquet reader with the declared schema
 * would hand them over.
 */
final class FuzzStages {

    /** Width E of the multi-head model's weights. */
    static final int MODEL_WIDTH = 4;
    /** Heads of the multi-head model and of the per-head stage. */
    static final int HEADS = 2;

    /** query/key/value as {@code array<array<float>>}; mask and bias shared by the heads (L×S). */
    static final StructType SHARED = new StructType()
        .add("query", matrix(DataTypes.FloatType))
        .add("key", matrix(DataTypes.FloatType))
        .add("value", matrix(DataTypes.FloatType))
        .add("key_length", DataTypes.LongType)
        .add("attn_mask", matrix(DataTypes.BooleanType))
        .add("attn_bias", matrix(DataTypes.FloatType));

    /** query/key/value as {@code array<array<double>>}; mask and bias per head (H×L×S). */
    static final StructType PER_HEAD = new StructType()
        .add("query", matrix(DataTypes.DoubleType))
        .add("key", matrix(DataTypes.DoubleType))
        .add("value", matrix(DataTypes.DoubleType))
        .add("key_length", DataTypes.LongType)
        .add("attn_mask", array(matrix(DataTypes.BooleanType)))
        .add("attn_bias", array(matrix(DataTypes.FloatType)));

    /** query as {@code array<vector>} (MLlib's VectorUDT, dense or sparse). */
    static final StructType VECTORS = new StructType()
        .add("query", array(SQLDataTypes.VectorType()))
        .add("key_length", DataTypes.LongType);

    /**
     * Flat sequences: query {@code array<float>} with its width in the metadata, key and value
     * {@code array<double>} without (the stages' {@code sequenceWidth} or weights give it).
     */
    static final StructType FLAT = new StructType()
        .add(new StructField("query", array(DataTypes.FloatType), true, SequenceLayout.widthMetadata(MODEL_WIDTH)))
        .add("key", array(DataTypes.DoubleType))
        .add("value", array(DataTypes.DoubleType))
        .add("key_length", DataTypes.LongType);

    private FuzzStages() {
    }

    /** Every stage of the fuzz tests over one schema, planned once per JVM. */
    static List<StageRow> over(StructType schema) {
        if (schema == SHARED) {
            return Holder.SHARED_STAGES;
        }
        if (schema == PER_HEAD) {
            return Holder.PER_HEAD_STAGES;
        }
        if (schema == VECTORS) {
            return Holder.VECTOR_STAGES;
        }
        if (schema == FLAT) {
            return Holder.FLAT_STAGES;
        }
        throw new IllegalArgumentException("not a fuzz schema: " + schema.simpleString());
    }

    private static final class Holder {
        static final List<StageRow> SHARED_STAGES = List.of(sdpaSelf(), sdpaCross(), multiHead());
        static final List<StageRow> PER_HEAD_STAGES = List.of(sdpaPerHead());
        static final List<StageRow> VECTOR_STAGES = List.of(sdpaVectors());
        static final List<StageRow> FLAT_STAGES = List.of(sdpaFlat(), multiHeadFlat());
    }

    /** Self-attention on query alone, with key length, shared mask and bias, averaged weights. */
    private static StageRow sdpaSelf() {
        ScaledDotProductAttention s = new ScaledDotProductAttention().setKeyLengthCol("key_length")
            .setAttnMaskCol("attn_mask").setAttnBiasCol("attn_bias").setWeightsCol("attn_weights");
        return StageRow.of(s, s, SHARED);
    }

    /** Cross-attention on query, key and value, with key length, shared mask and bias. */
    private static StageRow sdpaCross() {
        ScaledDotProductAttention s = new ScaledDotProductAttention().setKeyCol("key").setValueCol("value")
            .setKeyLengthCol("key_length").setAttnMaskCol("attn_mask").setAttnBiasCol("attn_bias");
        return StageRow.of(s, s, SHARED);
    }

    /** PyTorch's layer (E = 4, 2 heads) on query alone, with key length, mask and per-head weights. */
    private static StageRow multiHead() {
        MultiHeadAttentionModel m = new MultiHeadAttentionModel(
            MultiHeadAttentionInit.pytorchDefault(MODEL_WIDTH, HEADS, MODEL_WIDTH, MODEL_WIDTH, true, 7))
            .setKeyLengthCol("key_length").setAttnMaskCol("attn_mask").setWeightsCol("attn_weights")
            .setAverageWeights(false);
        return StageRow.of(m, m, SHARED);
    }

    /** Two causal heads over double columns, per-head mask and bias, NaN kept, per-head weights. */
    private static StageRow sdpaPerHead() {
        ScaledDotProductAttention s = new ScaledDotProductAttention().setNumHeads(HEADS).setCausal(true)
            .setKeyCol("key").setValueCol("value").setKeyLengthCol("key_length").setAttnMaskCol("attn_mask")
            .setAttnBiasCol("attn_bias").setHandleInvalid("keep").setWeightsCol("attn_weights")
            .setAverageWeights(false);
        return StageRow.of(s, s, PER_HEAD);
    }

    /** Self-attention on vectors, with key length. */
    private static StageRow sdpaVectors() {
        ScaledDotProductAttention s = new ScaledDotProductAttention().setKeyLengthCol("key_length");
        return StageRow.of(s, s, VECTORS);
    }

    /** Two heads of cross-attention over flat columns, with key length; the output flat too. */
    private static StageRow sdpaFlat() {
        ScaledDotProductAttention s = new ScaledDotProductAttention().setNumHeads(HEADS).setKeyCol("key")
            .setValueCol("value").setKeyLengthCol("key_length").setSequenceWidth(MODEL_WIDTH);
        return StageRow.of(s, s, FLAT);
    }

    /** PyTorch's layer on flat query, key and value (its weights give their widths), with key length. */
    private static StageRow multiHeadFlat() {
        MultiHeadAttentionModel m = new MultiHeadAttentionModel(
            MultiHeadAttentionInit.pytorchDefault(MODEL_WIDTH, HEADS, MODEL_WIDTH, MODEL_WIDTH, true, 7))
            .setKeyCol("key").setValueCol("value").setKeyLengthCol("key_length");
        return StageRow.of(m, m, FLAT);
    }

    static ArrayType array(DataType element) {
        return DataTypes.createArrayType(element, true);
    }

    static ArrayType matrix(DataType element) {
        return array(array(element));
    }
}

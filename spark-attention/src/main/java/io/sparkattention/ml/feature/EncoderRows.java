package io.sparkattention.ml.feature;

import io.sparkattention.bert.BertConfig;
import io.sparkattention.nn.Pooling;
import io.sparkattention.rows.FlatSequence;
import io.sparkattention.rows.MatrixType;
import io.sparkattention.rows.NestedArrays;
import io.sparkattention.rows.PlaneColumn;
import io.sparkattention.rows.RowDataException;
import io.sparkattention.rows.TokenIds;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.UserDefinedType;

import java.io.Serializable;

/**
 * The encoder stage's row codec, shared by its grouped path ({@link EncodePartition}) and its
 * row-at-a-time path on streams ({@link EncodeFunction}): a row's token ids decoded and checked
 * against the model (errors name the column and position), and the requested outputs encoded —
 * the sentence embedding as an MLlib vector, the last hidden state (L×E, nested or flat), one
 * layer's per-head attention probabilities (H×L×L).
 */
final class EncoderRows implements Serializable {

    private static final long serialVersionUID = 1L;

    static final String EMBEDDING = "embedding";
    static final String STATES = "last_hidden_state";
    static final String ATTENTION = "attention";

    /** What is computed besides the forward pass. */
    record Outputs(boolean embedding, Pooling pooling, boolean normalize, boolean states,
                   boolean flatStates, int attentionLayer) implements Serializable {
        /** Whether the attention of a layer is asked for. */
        boolean attention() {
            return attentionLayer >= 0;
        }
    }

    private final TokenIds tokenIds;
    private final Outputs outputs;

    /**
     * @param tokenIds the ids' column and its check against the model's vocabulary
     */
    EncoderRows(TokenIds tokenIds, Outputs outputs) {
        this.tokenIds = tokenIds;
        this.outputs = outputs;
    }

    Outputs outputs() {
        return outputs;
    }

    /** The struct of every output (those not asked for stay null). */
    static StructType resultType(Outputs outputs) {
        return new StructType()
            .add(EMBEDDING, SQLDataTypes.VectorType(), true)
            .add(STATES, outputs.flatStates() ? FlatSequence.OUTPUT : MatrixType.OUTPUT, true)
            .add(ATTENTION, PlaneColumn.weightsType(true), true);
    }

    /** Whether {@code type} is a token id column: {@code array<int>} or {@code array<bigint>}. */
    static boolean isIds(DataType type) {
        if (!(type instanceof ArrayType)) {
            return false;
        }
        DataType e = ((ArrayType) type).elementType();
        return e.equals(DataTypes.IntegerType) || e.equals(DataTypes.LongType);
    }

    /**
     * A row's ids, checked against the model ({@link TokenIds}: any length up to its positions).
     *
     * @param value the column's Catalyst value
     * @return the ids, or null for a null value when nulls are kept
     * @throws RowDataException naming the column (and position) for a null array or id, an id
     *                          outside the vocabulary, or more ids than positions
     */
    int[] ids(Object value, BertConfig config) {
        return tokenIds.read(value, 0, config.maxPositions());
    }

    /**
     * The three outputs of a row ({@link #resultType} order), null where not asked for.
     *
     * @param states    its last hidden state, L×hidden
     * @param attention its heads' probabilities (H×L×L), or null
     */
    Object[] encode(float[] states, int length, BertConfig config, float[] attention) {
        Object embedding = null;
        if (outputs.embedding()) {
            float[] pooled = outputs.pooling().embed(states, length, config.hidden(), outputs.normalize());
            double[] values = new double[pooled.length];
            for (int i = 0; i < values.length; i++) {
                values[i] = pooled[i];
            }
            embedding = vectorType().serialize(Vectors.dense(values));
        }
        Object stateValue = null;
        if (outputs.states()) {
            stateValue = outputs.flatStates() ? FlatSequence.encode(states, 0, states.length)
                : NestedArrays.matrix(states, 0, length, config.hidden());
        }
        Object attentionValue = attention == null ? null
            : NestedArrays.planes(attention, config.heads(), length, length);
        return new Object[] {embedding, stateValue, attentionValue};
    }

    @SuppressWarnings("unchecked")
    private static UserDefinedType<Vector> vectorType() {
        return (UserDefinedType<Vector>) SQLDataTypes.VectorType();
    }
}

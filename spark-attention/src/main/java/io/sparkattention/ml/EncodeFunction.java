package io.sparkattention.ml;

import io.sparkattention.exec.RowFunction;
import io.sparkattention.bert.BertConfig;
import io.sparkattention.bert.BertEncoder;
import io.sparkattention.nn.Pooling;
import io.sparkattention.rows.FlatSequence;
import io.sparkattention.rows.MatrixType;
import io.sparkattention.rows.NestedArrays;
import io.sparkattention.rows.PlaneColumn;
import io.sparkattention.rows.RowDataException;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.UserDefinedType;

/**
 * One row's token ids in, the encoder's outputs out, as a struct {@code (embedding vector,
 * last_hidden_state, attention)} of which only the requested fields are filled: the sentence
 * embedding as an MLlib vector, the last hidden state (L×E, nested or flat) and one layer's
 * per-head attention probabilities (H×L×L). Each row is encoded on its own, so its outputs do not
 * depend on the other rows of its task. A null id array gives a null struct, or an error naming
 * the column when {@code nullIsError}; an id outside the vocabulary or a sequence longer than the
 * model's positions is an error naming the column and position.
 */
final class EncodeFunction implements RowFunction {

    private static final long serialVersionUID = 1L;

    static final String EMBEDDING = "embedding";
    static final String STATES = "last_hidden_state";
    static final String ATTENTION = "attention";

    /** What the function computes besides the forward pass. */
    record Outputs(boolean embedding, Pooling pooling, boolean normalize, boolean states,
                   boolean flatStates, int attentionLayer) implements java.io.Serializable {
        /** Whether the attention of a layer is asked for. */
        boolean attention() {
            return attentionLayer >= 0;
        }
    }

    private final Broadcast<ShippedEncoder> encoder;
    private final String column;
    private final boolean longIds;
    private final boolean nullIsError;
    private final Outputs outputs;

    EncodeFunction(Broadcast<ShippedEncoder> encoder, String column, boolean longIds, boolean nullIsError,
                   Outputs outputs) {
        this.encoder = encoder;
        this.column = column;
        this.longIds = longIds;
        this.nullIsError = nullIsError;
        this.outputs = outputs;
    }

    /** The struct the function returns, for these outputs. */
    static StructType resultType(Outputs outputs) {
        return new StructType()
            .add(EMBEDDING, SQLDataTypes.VectorType(), true)
            .add(STATES, outputs.flatStates() ? FlatSequence.OUTPUT : MatrixType.OUTPUT, true)
            .add(ATTENTION, PlaneColumn.weightsType(true), true);
    }

    @Override
    public Object apply(Object[] inputs) {
        if (inputs[0] == null) {
            if (nullIsError) {
                throw new RowDataException("column " + column + " is null (handleInvalid = error; skip drops such "
                    + "rows, keep gives null outputs)");
            }
            return null;
        }
        int[] ids = ids((ArrayData) inputs[0]);
        BertEncoder model = encoder.value().get();
        BertConfig config = model.config();
        int length = ids.length;
        int hidden = config.hidden();
        float[] states;
        float[] attention = null;
        try {
            if (outputs.attention()) {
                attention = new float[Math.multiplyExact(config.heads(), Math.multiplyExact(length, length))];
                states = model.forward(ids, outputs.attentionLayer(), attention);
            } else {
                states = model.forward(ids);
            }
        } catch (IllegalArgumentException e) {
            throw new RowDataException("column " + column + ": " + e.getMessage());
        }
        Object embedding = null;
        if (outputs.embedding()) {
            float[] pooled = outputs.pooling().embed(states, length, hidden, outputs.normalize());
            double[] values = new double[pooled.length];
            for (int i = 0; i < values.length; i++) {
                values[i] = pooled[i];
            }
            embedding = vectorType().serialize(Vectors.dense(values));
        }
        Object stateValue = null;
        if (outputs.states()) {
            stateValue = outputs.flatStates() ? FlatSequence.encode(states, 0, states.length)
                : NestedArrays.matrix(states, 0, length, hidden);
        }
        Object attentionValue = attention == null ? null : NestedArrays.planes(attention, config.heads(), length, length);
        return new GenericInternalRow(new Object[] {embedding, stateValue, attentionValue});
    }

    @SuppressWarnings("unchecked")
    private static UserDefinedType<Vector> vectorType() {
        return (UserDefinedType<Vector>) SQLDataTypes.VectorType();
    }

    private int[] ids(ArrayData array) {
        int n = array.numElements();
        for (int i = 0; i < n; i++) {
            if (array.isNullAt(i)) {
                throw new RowDataException("column " + column + " has a null token id at position " + i);
            }
        }
        if (!longIds) {
            return array.toIntArray();
        }
        int[] ids = new int[n];
        for (int i = 0; i < n; i++) {
            long id = array.getLong(i);
            if (id < Integer.MIN_VALUE || id > Integer.MAX_VALUE) {
                throw new RowDataException("column " + column + ": token id " + id + " at position " + i
                    + " is outside the int range");
            }
            ids[i] = (int) id;
        }
        return ids;
    }

    /** Whether {@code type} is a token id column: {@code array<int>} or {@code array<bigint>}. */
    static boolean isIds(DataType type) {
        if (!(type instanceof ArrayType)) {
            return false;
        }
        DataType e = ((ArrayType) type).elementType();
        return e.equals(DataTypes.IntegerType) || e.equals(DataTypes.LongType);
    }
}

package io.sparkattention.ml;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Builds a Catalyst row of a fuzz schema from fuzzer bytes, as a Parquet reader could hand one
 * over: matrices of one drawn shape (L, S, E) with, at the fuzzer's choice, ragged rows, nulls at
 * every depth, NaN and ±∞, head counts that differ from the stage's, key lengths anywhere in the
 * long range, and vectors whose size, indices and values disagree.
 */
final class FuzzedRows {

    /** Largest matrix dimension drawn: enough for several tiles' edges, small enough to stay fast. */
    static final int MAX_DIM = 9;

    private final FuzzedDataProvider data;
    /** Chance, in 1 / this, that a length deviates from the drawn shape or a value is null. */
    private final int noise;
    private final int queryLength;
    private final int keyLength;
    private final int width;
    private final int heads;

    private FuzzedRows(FuzzedDataProvider data) {
        this.data = data;
        this.noise = data.consumeInt(2, 64);
        this.queryLength = data.consumeInt(0, MAX_DIM);
        this.keyLength = data.consumeInt(0, MAX_DIM);
        this.width = data.consumeInt(0, MAX_DIM);
        this.heads = data.consumeInt(0, 3);
    }

    /** One row of {@code schema}, drawn from {@code data}. */
    static InternalRow row(FuzzedDataProvider data, StructType schema) {
        FuzzedRows rows = new FuzzedRows(data);
        StructField[] fields = schema.fields();
        Object[] values = new Object[fields.length];
        for (int i = 0; i < fields.length; i++) {
            values[i] = rows.column(fields[i]);
        }
        return new GenericInternalRow(values);
    }

    private Object column(StructField field) {
        if (rare()) {
            return null;
        }
        switch (field.name()) {
            case "query":
                return field.dataType().equals(FuzzStages.array(SQLDataTypes.VectorType()))
                    ? vectors(queryLength, width) : sequence(field.dataType(), queryLength);
            case "key":
            case "value":
                return sequence(field.dataType(), keyLength);
            case "key_length":
                return data.consumeBoolean() ? data.consumeLong(-1, keyLength + 1) : data.consumeLong();
            default:
                return planes(field.dataType());
        }
    }

    /** A query, key or value of {@code rows} positions: nested, or flat around rows × the stages' width. */
    private Object sequence(DataType type, int rows) {
        DataType element = ((ArrayType) type).elementType();
        if (element instanceof ArrayType) {
            return matrix(type, rows, width);
        }
        Object[] values = new Object[length(rows * FuzzStages.MODEL_WIDTH)];
        for (int j = 0; j < values.length; j++) {
            values[j] = rare() ? null : scalar(element);
        }
        return new GenericArrayData(values);
    }

    /** A mask or bias: L×S, or H×L×S when the type nests three deep. */
    private Object planes(DataType type) {
        DataType element = ((ArrayType) type).elementType();
        if (element instanceof ArrayType && ((ArrayType) element).elementType() instanceof ArrayType) {
            Object[] planes = new Object[length(heads)];
            for (int h = 0; h < planes.length; h++) {
                planes[h] = rare() ? null : matrix(element, queryLength, keyLength);
            }
            return new GenericArrayData(planes);
        }
        return matrix(type, queryLength, keyLength);
    }

    /** A {@code rows}×{@code cols} matrix of {@code type} ({@code array<array<t>>}), perhaps ragged or holed. */
    private Object matrix(DataType type, int rows, int cols) {
        DataType scalar = ((ArrayType) ((ArrayType) type).elementType()).elementType();
        Object[] out = new Object[length(rows)];
        for (int i = 0; i < out.length; i++) {
            if (rare()) {
                continue;
            }
            Object[] row = new Object[length(cols)];
            for (int j = 0; j < row.length; j++) {
                row[j] = rare() ? null : scalar(scalar);
            }
            out[i] = new GenericArrayData(row);
        }
        return new GenericArrayData(out);
    }

    private Object scalar(DataType type) {
        if (type.equals(DataTypes.BooleanType)) {
            return data.consumeBoolean();
        }
        float x = data.consumeBoolean() ? data.consumeFloat() : data.consumeInt(-4, 4) * 0.5f;
        return type.equals(DataTypes.DoubleType) ? (Object) (double) x : (Object) x;
    }

    /**
     * {@code rows} MLlib vectors of {@code cols} values in VectorUDT's Catalyst form
     * (type: 0 sparse, 1 dense; size; indices; values), whose fields may disagree.
     */
    private Object vectors(int rows, int cols) {
        Object[] out = new Object[length(rows)];
        for (int i = 0; i < out.length; i++) {
            if (rare()) {
                continue;
            }
            boolean dense = data.consumeBoolean();
            int size = rare() ? data.consumeInt(-2, MAX_DIM + 2) : cols;
            int stored = dense ? length(cols) : data.consumeInt(0, Math.max(0, cols));
            Object[] indices = new Object[stored];
            Object[] values = new Object[length(stored)];
            for (int j = 0; j < stored; j++) {
                indices[j] = rare() ? data.consumeInt(-2, MAX_DIM + 2) : j;
            }
            for (int j = 0; j < values.length; j++) {
                values[j] = (double) (Float) scalar(DataTypes.FloatType);
            }
            out[i] = new GenericInternalRow(new Object[] {(byte) (dense ? 1 : 0), size,
                dense ? null : new GenericArrayData(indices), new GenericArrayData(values)});
        }
        return new GenericArrayData(out);
    }

    /** {@code n}, or now and then a neighbour of it. */
    private int length(int n) {
        return rare() ? Math.max(0, n + data.consumeInt(-1, 1)) : n;
    }

    private boolean rare() {
        return data.consumeInt(0, noise - 1) == 0;
    }
}

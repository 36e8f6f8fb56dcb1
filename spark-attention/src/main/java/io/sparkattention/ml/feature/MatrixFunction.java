package io.sparkattention.ml.feature;

import io.sparkattention.exec.RowFunction;
import io.sparkattention.exec.RowFunctions;
import io.sparkattention.ml.StageSchema;
import io.sparkattention.rows.MatrixType;
import io.sparkattention.rows.NestedArrays;
import io.sparkattention.rows.RowBuffers;
import io.sparkattention.rows.RowDataException;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.StructType;

import java.io.Serializable;
import java.util.List;

/**
 * A per-row function from one matrix column to an {@code array<array<float>>} of the same shape,
 * for the positional encodings: decodes the row (any {@link MatrixType}), rejects NaN/Inf unless
 * asked to keep them, applies the operation, encodes. A null matrix gives null.
 */
final class MatrixFunction implements RowFunction {

    private static final long serialVersionUID = 1L;

    /** The computation on one row-major matrix. */
    @FunctionalInterface
    interface Operation extends Serializable {
        /**
         * @return a new {@code rows×cols} array
         * @throws IllegalArgumentException when the matrix's shape does not suit the operation
         */
        float[] apply(float[] values, int rows, int cols);
    }

    private final MatrixType type;
    private final String column;
    private final boolean keepInvalid;
    private final Operation operation;
    /** The decoded input, reused across the task's rows (one copy of this function per task). */
    private transient RowBuffers buffers;

    /**
     * The column that applies {@code operation} to every row's {@code input} matrix.
     *
     * @param name          the expression's name in plans
     * @param schema        the input's schema
     * @param input         the matrix column
     * @param param         the param naming {@code input}, for schema errors
     * @param handleInvalid {@code keep} to let NaN/Inf propagate, {@code error} to reject the row
     * @param operation     the computation on one row's matrix
     */
    static Column column(String name, StructType schema, String input, String param, String handleInvalid,
                         Operation operation) {
        MatrixFunction function = new MatrixFunction(StageSchema.matrix(schema, input, param), input,
            "keep".equals(handleInvalid), operation);
        Column in = functions.col("`" + input.replace("`", "``") + "`");
        return RowFunctions.column(name, function, MatrixType.OUTPUT, null, List.of(in));
    }

    MatrixFunction(MatrixType type, String column, boolean keepInvalid, Operation operation) {
        this.type = type;
        this.column = column;
        this.keepInvalid = keepInvalid;
        this.operation = operation;
    }

    @Override
    public Object apply(Object[] inputs) {
        if (inputs[0] == null) {
            return null;
        }
        if (buffers == null) {
            buffers = new RowBuffers();
        }
        MatrixType.Matrix m = type.decode((ArrayData) inputs[0], column, !keepInvalid, MatrixType.KEEP_HINT, buffers,
            RowBuffers.Slot.QUERY);
        float[] out;
        try {
            out = operation.apply(m.values, m.rows, m.cols);
        } catch (RowDataException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            throw new RowDataException("column " + column + ": " + e.getMessage());
        }
        return NestedArrays.matrix(out, 0, m.rows, m.cols);
    }
}

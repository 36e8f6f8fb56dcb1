package io.sparkattention.ml.feature;

import io.sparkattention.exec.RowFunction;
import io.sparkattention.exec.RowFunctions;
import io.sparkattention.ml.InvalidRowParams;
import io.sparkattention.ml.StageParams;
import io.sparkattention.ml.StageSchema;
import io.sparkattention.rows.MatrixType;
import io.sparkattention.rows.RowBuffers;
import io.sparkattention.rows.RowDataException;
import io.sparkattention.rows.SequenceColumns;
import io.sparkattention.rows.SequenceDecoder;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

import java.io.Serializable;
import java.util.List;

/**
 * A per-row function from one sequence column to a sequence of the same shape and layout, for
 * the positional encodings: decodes the row (nested, or flat {@code array<float|double>} with its
 * width in the column's metadata: {@link SequenceColumns}), rejects NaN/Inf unless asked to keep
 * them, applies the operation, encodes in the input's layout (flat output carries the width). A
 * null input gives null.
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

    private final SequenceDecoder type;
    private final String column;
    private final boolean keepInvalid;
    private final Operation operation;
    /** The decoded input, reused across the task's rows (one copy of this function per task). */
    private transient RowBuffers buffers;

    /** How the sequence column {@code input} (named by {@code param}) is decoded, or an error naming it. */
    static SequenceDecoder input(StructType schema, String input, String param) {
        return SequenceColumns.decoder(StageSchema.field(schema, input, param), param, -1,
            SequenceColumns.NO_WIDTH_PARAM);
    }

    /** The output column {@code output} made from {@code input}: its layout and width. */
    static StructField outputField(StructType schema, String input, String param, String output) {
        return SequenceColumns.outputLike(output, input(schema, input, param));
    }

    /**
     * {@code df} with the column {@code output} that applies {@code operation} to every row's
     * {@code input} sequence.
     *
     * @param df            the rows ({@code schema} is their input's schema)
     * @param name          the expression's name in plans
     * @param input         the sequence column
     * @param param         the param naming {@code input}, for schema errors
     * @param output        the new column
     * @param rows          the stage: {@code handleInvalid} ({@code keep} lets NaN/Inf propagate,
     *                      {@code error} rejects the row) and the row id column its errors name
     * @param operation     the computation on one row's matrix
     */
    static Dataset<Row> withColumn(Dataset<Row> df, StructType schema, String name, String input, String param,
                                   String output, InvalidRowParams<?> rows, Operation operation) {
        SequenceDecoder type = input(schema, input, param);
        StructField field = SequenceColumns.outputLike(output, type);
        MatrixFunction function = new MatrixFunction(type, input, "keep".equals(rows.getHandleInvalid()), operation);
        Column in = StageParams.column(input);
        return df.withColumn(output,
            RowFunctions.column(name, function, field.dataType(), rows.rowIdColumn(), List.of(in)), field.metadata());
    }

    MatrixFunction(SequenceDecoder type, String column, boolean keepInvalid, Operation operation) {
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
        return SequenceColumns.encode(out, m.rows, m.cols, SequenceColumns.isFlat(type));
    }
}

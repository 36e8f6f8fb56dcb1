package io.sparkattention.ml;

import io.sparkattention.exec.AttentionJob;
import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.RowMask;
import io.sparkattention.nn.PreparedSequence;
import io.sparkattention.nn.AttentionWeightsMode;
import io.sparkattention.rows.FlatSequence;
import io.sparkattention.rows.MatrixType;
import io.sparkattention.rows.NestedArrays;
import io.sparkattention.rows.PlaneColumn;
import io.sparkattention.rows.RowBuffers;
import io.sparkattention.rows.RowDataException;
import io.sparkattention.rows.SequenceColumns;
import io.sparkattention.rows.SequenceDecoder;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.types.StructType;

import java.util.ArrayList;
import java.util.List;

/**
 * An attention stage's {@link AttentionJob}: the columns it reads (as {@link #inputColumns()}
 * orders them: query, then key, value, key length, mask, bias when present and distinct), how a
 * row is decoded and checked, the layer that projects it, and how outputs are encoded.
 */
final class AttentionStageJob implements AttentionJob {

    private static final long serialVersionUID = 1L;

    private final StageColumns columns;
    private final LayerSource source;
    private final int numHeads;
    private final AttentionWeightsMode weightsMode;
    private final boolean keepInvalid;
    private final StructType outputStruct;
    private final FlashAttention kernel;
    /** The output's layout, as {@code outputStruct} declares it: flat {@code array<float>} or nested. */
    private final boolean flatOutput;

    AttentionStageJob(StageColumns columns, LayerSource source, AttentionSpec spec, int numHeads,
                      AttentionWeightsMode weightsMode, boolean keepInvalid, StructType outputStruct) {
        this.columns = columns;
        this.source = source;
        this.kernel = new FlashAttention(spec);
        this.numHeads = numHeads;
        this.weightsMode = weightsMode;
        this.keepInvalid = keepInvalid;
        this.outputStruct = outputStruct;
        this.flatOutput = outputStruct.fields()[0].dataType().equals(FlatSequence.OUTPUT);
    }

    @Override
    public List<String> inputColumns() {
        return columns.names();
    }

    @Override
    public String queryColumn() {
        return columns.query.name;
    }

    @Override
    public String keyColumn() {
        return columns.key.name;
    }

    @Override
    public int queryPositionWidth() {
        return Math.max(0, columns.query.type.fixedWidth());
    }

    @Override
    public int keyPositionWidth() {
        return Math.max(0, columns.key.type.fixedWidth());
    }

    @Override
    public int numHeads() {
        return numHeads;
    }

    @Override
    public String rowIdColumn() {
        return columns.rowId;
    }

    @Override
    public StructType outputStruct() {
        return outputStruct;
    }

    @Override
    public AttentionWeightsMode weightsMode() {
        return weightsMode;
    }

    @Override
    public FlashAttention kernel() {
        return kernel;
    }

    @Override
    public PreparedSequence prepare(Object[] values) {
        return prepare(values, RowBuffers.none());
    }

    @Override
    public PreparedSequence prepare(Object[] values, RowBuffers buffers) {
        if (values[0] == null) {
            return null;
        }
        MatrixType.Matrix q = matrix(values, columns.query, buffers, RowBuffers.Slot.QUERY);
        MatrixType.Matrix k = columns.key == columns.query ? q
            : matrix(values, columns.key, buffers, RowBuffers.Slot.KEY);
        MatrixType.Matrix v = columns.value == columns.key ? k
            : columns.value == columns.query ? q : matrix(values, columns.value, buffers, RowBuffers.Slot.VALUE);
        requirePositions(q, columns.query);
        requirePositions(k, columns.key);
        requirePositions(v, columns.value);
        if (v.rows != k.rows) {
            throw new RowDataException("column " + columns.value.name + " has " + v.rows + " rows but column "
                + columns.key.name + " has " + k.rows);
        }
        int L = q.rows, S = k.rows;
        RowMask mask = RowMask.NONE;
        if (columns.keyLength != null && values[columns.keyLength.index] != null) {
            long length = ((Number) values[columns.keyLength.index]).longValue();
            if (length < 0 || length > S) {
                throw new RowDataException("column " + columns.keyLength.name + " is " + length + ", outside [0, " + S
                    + "] (the row has " + S + " keys)");
            }
            mask = mask.withKeyLength((int) length);
        }
        if (columns.mask != null && values[columns.mask.index] != null) {
            mask = mask.withAllowed(columns.maskPlanes.decodeMask((ArrayData) values[columns.mask.index],
                numHeads, L, S, buffers));
        }
        if (columns.bias != null && values[columns.bias.index] != null) {
            mask = mask.withBias(columns.biasPlanes.decodeBias((ArrayData) values[columns.bias.index],
                numHeads, L, S, keepInvalid, buffers));
        }
        try {
            return source.layer(q.cols, k.cols, v.cols).prepare(q.values, L, k.values, v.values, S, mask);
        } catch (RowDataException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            throw new RowDataException(e.getMessage());
        }
    }

    /** A sequence position needs at least one value: rows of none (e.g. {@code [[]]}) are refused. */
    private static void requirePositions(MatrixType.Matrix m, StageColumns.Input input) {
        if (m.rows > 0 && m.cols == 0) {
            throw new RowDataException("column " + input.name + " has " + m.rows + " rows of 0 values (a sequence "
                + "position needs at least one value)");
        }
    }

    private MatrixType.Matrix matrix(Object[] values, StageColumns.Input input, RowBuffers buffers,
                                     RowBuffers.Slot slot) {
        Object value = values[input.index];
        if (value == null) {
            throw new RowDataException("column " + input.name + " is null");
        }
        return input.type.decode((ArrayData) value, input.name, !keepInvalid, MatrixType.KEEP_HINT, buffers, slot);
    }

    @Override
    public float[] finish(float[] attended, int queryLength) {
        return source.finish(attended, queryLength);
    }

    @Override
    public InternalRow encode(float[] output, float[] weights, AttentionShape shape) {
        int L = shape.queryLength(), S = shape.keyLength();
        int width = L == 0 ? 0 : output.length / L;
        Object[] fields = new Object[outputStruct.size()];
        fields[0] = SequenceColumns.encode(output, L, width, flatOutput);
        if (weightsMode == AttentionWeightsMode.AVERAGED) {
            fields[1] = NestedArrays.matrix(weights, 0, L, S);
        } else if (weightsMode == AttentionWeightsMode.PER_HEAD) {
            fields[1] = NestedArrays.planes(weights, shape.numHeads(), L, S);
        }
        return new GenericInternalRow(fields);
    }

    /** The input columns of a stage, resolved against a schema: names, positions and types. */
    static final class StageColumns implements java.io.Serializable {

        private static final long serialVersionUID = 1L;

        /** One input column and its position in {@link #names()}. */
        static final class Input implements java.io.Serializable {
            private static final long serialVersionUID = 1L;
            final String name;
            final int index;
            final SequenceDecoder type;

            Input(String name, int index, SequenceDecoder type) {
                this.name = name;
                this.index = index;
                this.type = type;
            }
        }

        final Input query;
        final Input key;
        final Input value;
        final Input keyLength;
        final Input mask;
        final Input bias;
        final PlaneColumn maskPlanes;
        final PlaneColumn biasPlanes;
        final String rowId;
        private final List<String> names = new ArrayList<>();

        StageColumns(String query, SequenceDecoder queryType, String key, SequenceDecoder keyType, String value,
                     SequenceDecoder valueType, String keyLength, PlaneColumn mask, PlaneColumn bias, String rowId) {
            this.query = add(query, queryType);
            this.key = key.equals(query) ? this.query : add(key, keyType);
            this.value = value.equals(key) ? this.key : value.equals(query) ? this.query : add(value, valueType);
            this.keyLength = keyLength == null ? null : add(keyLength, null);
            this.mask = mask == null ? null : add(mask.column, null);
            this.bias = bias == null ? null : add(bias.column, null);
            this.maskPlanes = mask;
            this.biasPlanes = bias;
            this.rowId = rowId;
        }

        private Input add(String name, SequenceDecoder type) {
            names.add(name);
            return new Input(name, names.size() - 1, type);
        }

        List<String> names() {
            return names;
        }
    }
}

package io.sparkattention.exec;

import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.RowMask;
import io.sparkattention.nn.MultiHeadAttentionLayer;
import io.sparkattention.nn.PreparedSequence;
import io.sparkattention.nn.AttentionWeightsMode;
import io.sparkattention.rows.RowDataException;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

import java.util.List;

/**
 * A test {@link AttentionJob} around {@link MultiHeadAttentionLayer} (PyTorch's MHA: input
 * projections in {@code prepare}, output projection in {@code finish}), so that the execution
 * strategies are tested on the projection path. Columns: {@code query}, {@code key},
 * {@code value} (array&lt;array&lt;float&gt;&gt;), {@code key_length} (int, nullable) and
 * {@code bias} (flat array&lt;float&gt; of H·L·S, nullable).
 */
final class LayerJob implements AttentionJob {

    private static final long serialVersionUID = 1L;

    static final DataType MATRIX = DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.FloatType));
    static final DataType FLAT = DataTypes.createArrayType(DataTypes.FloatType);
    static final StructType INPUT = new StructType().add("id", DataTypes.IntegerType)
        .add("query", MATRIX).add("key", MATRIX).add("value", MATRIX)
        .add("key_length", DataTypes.IntegerType).add("bias", FLAT);

    private final MultiHeadAttentionLayer layer;
    private final AttentionWeightsMode mode;

    LayerJob(MultiHeadAttentionLayer layer, AttentionWeightsMode mode) {
        this.layer = layer;
        this.mode = mode;
    }

    @Override
    public List<String> inputColumns() {
        return List.of("query", "key", "value", "key_length", "bias");
    }

    @Override
    public String keyColumn() {
        return "key";
    }

    @Override
    public int numHeads() {
        return layer.weights().numHeads();
    }

    @Override
    public String rowIdColumn() {
        return "id";
    }

    @Override
    public StructType outputStruct() {
        StructType out = new StructType().add("out", MATRIX, true);
        if (mode == AttentionWeightsMode.AVERAGED) {
            out = out.add("weights", MATRIX, true);
        } else if (mode == AttentionWeightsMode.PER_HEAD) {
            out = out.add("weights", DataTypes.createArrayType(MATRIX), true);
        }
        return out;
    }

    @Override
    public AttentionWeightsMode weightsMode() {
        return mode;
    }

    @Override
    public FlashAttention kernel() {
        return layer.kernel();
    }

    @Override
    public PreparedSequence prepare(Object[] values) {
        if (values[0] == null) {
            return null;
        }
        ArrayData q = (ArrayData) values[0], k = (ArrayData) values[1], v = (ArrayData) values[2];
        RowMask mask = RowMask.NONE;
        if (values[3] != null) {
            int length = (Integer) values[3];
            if (length < 0 || length > k.numElements()) {
                throw new RowDataException("column key_length is " + length + ", outside [0, " + k.numElements() + "]");
            }
            mask = mask.withKeyLength(length);
        }
        if (values[4] != null) {
            mask = mask.withBias(((ArrayData) values[4]).toFloatArray());
        }
        return layer.prepare(flatten(q), q.numElements(), flatten(k), flatten(v), k.numElements(), mask);
    }

    @Override
    public float[] finish(float[] attended, int queryLength) {
        return layer.finish(attended, queryLength);
    }

    @Override
    public InternalRow encode(float[] output, float[] weights, AttentionShape shape) {
        int L = shape.queryLength(), S = shape.keyLength();
        Object[] fields = new Object[outputStruct().size()];
        fields[0] = matrix(output, 0, L, layer.outputWidth());
        if (mode == AttentionWeightsMode.AVERAGED) {
            fields[1] = matrix(weights, 0, L, S);
        } else if (mode == AttentionWeightsMode.PER_HEAD) {
            Object[] planes = new Object[shape.numHeads()];
            for (int h = 0; h < planes.length; h++) {
                planes[h] = matrix(weights, h * L * S, L, S);
            }
            fields[1] = new GenericArrayData(planes);
        }
        return new GenericInternalRow(fields);
    }

    static float[] flatten(ArrayData m) {
        int rows = m.numElements();
        if (rows == 0) {
            return new float[0];
        }
        int cols = m.getArray(0).numElements();
        float[] out = new float[rows * cols];
        for (int i = 0; i < rows; i++) {
            ArrayData row = m.getArray(i);
            if (row.numElements() != cols) {
                throw new RowDataException("ragged matrix: row " + i + " has " + row.numElements() + " values, expected "
                    + cols);
            }
            System.arraycopy(row.toFloatArray(), 0, out, i * cols, cols);
        }
        return out;
    }

    static ArrayData matrix(float[] values, int offset, int rows, int cols) {
        Object[] out = new Object[rows];
        for (int i = 0; i < rows; i++) {
            float[] row = new float[cols];
            System.arraycopy(values, offset + i * cols, row, 0, cols);
            out[i] = UnsafeArrayData.fromPrimitiveArray(row);
        }
        return new GenericArrayData(out);
    }
}

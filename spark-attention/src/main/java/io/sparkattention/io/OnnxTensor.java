package io.sparkattention.io;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * One tensor of an ONNX file (an initializer, or a Constant node's value) as stored: its dtype,
 * dims and either {@code raw_data} (little-endian, row-major) or the typed repeated field. Read as
 * float32 or int64 on request, when the dtype allows.
 */
public final class OnnxTensor {

    /** ONNX {@code TensorProto.DataType} FLOAT. */
    static final int FLOAT = 1;
    /** ONNX {@code TensorProto.DataType} INT32. */
    static final int INT32 = 6;
    /** ONNX {@code TensorProto.DataType} INT64. */
    static final int INT64 = 7;
    /** ONNX {@code TensorProto.DataType} DOUBLE. */
    static final int DOUBLE = 11;

    private final String source;
    private final String name;
    private final int dataType;
    private final long[] dims;
    /** raw_data (a view of the file's bytes), or null. */
    private final ByteBuffer raw;
    private final float[] floatData;
    private final long[] int64Data;
    private final int[] int32Data;
    private final double[] doubleData;
    private final boolean external;

    OnnxTensor(String source, String name, int dataType, long[] dims, ByteBuffer raw, float[] floatData,
               long[] int64Data, int[] int32Data, double[] doubleData, boolean external) {
        this.source = source;
        this.name = name;
        this.dataType = dataType;
        this.dims = dims;
        this.raw = raw;
        this.floatData = floatData;
        this.int64Data = int64Data;
        this.int32Data = int32Data;
        this.doubleData = doubleData;
        this.external = external;
    }

    public String name() {
        return name;
    }

    /** ONNX's {@code TensorProto.DataType} number (1 = FLOAT, 7 = INT64, …). */
    public int dataType() {
        return dataType;
    }

    /** The dims, outermost first (a copy). */
    public long[] dims() {
        return dims.clone();
    }

    /**
     * Elements: the product of the dims (1 for a scalar), or {@link Long#MAX_VALUE} when the product
     * does not fit a long (dims from a file may claim any size).
     */
    public long elementCount() {
        long n = 1;
        for (long d : dims) {
            try {
                n = Math.multiplyExact(n, d);
            } catch (ArithmeticException e) {
                return Long.MAX_VALUE;
            }
        }
        return n;
    }

    /**
     * The elements as float32 (FLOAT, or DOUBLE rounded).
     *
     * @throws TensorFormatException naming the tensor when it is stored outside the file, of
     *                               another dtype, or its data does not match its dims
     */
    public float[] floats() throws TensorFormatException {
        checkStoredHere();
        int n = count();
        if (dataType == FLOAT) {
            if (raw != null) {
                checkRaw(n, Float.BYTES);
                float[] out = new float[n];
                raw.duplicate().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(out);
                return out;
            }
            return checkedLength(floatData, n);
        }
        if (dataType == DOUBLE) {
            double[] d;
            if (raw != null) {
                checkRaw(n, Double.BYTES);
                d = new double[n];
                raw.duplicate().order(ByteOrder.LITTLE_ENDIAN).asDoubleBuffer().get(d);
            } else {
                d = checkedLength(doubleData, n);
            }
            float[] out = new float[n];
            for (int i = 0; i < n; i++) {
                out[i] = (float) d[i];
            }
            return out;
        }
        throw new TensorFormatException(source, name, "has ONNX data type " + dataType
            + ", but a float tensor (FLOAT or DOUBLE) is needed");
    }

    /**
     * The elements as longs (INT64 or INT32).
     *
     * @throws TensorFormatException naming the tensor when it is stored outside the file, of
     *                               another dtype, or its data does not match its dims
     */
    public long[] longs() throws TensorFormatException {
        checkStoredHere();
        int n = count();
        if (dataType == INT64) {
            if (raw != null) {
                checkRaw(n, Long.BYTES);
                long[] out = new long[n];
                raw.duplicate().order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(out);
                return out;
            }
            return checkedLength(int64Data, n);
        }
        if (dataType == INT32) {
            int[] v;
            if (raw != null) {
                checkRaw(n, Integer.BYTES);
                v = new int[n];
                raw.duplicate().order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().get(v);
            } else {
                v = checkedLength(int32Data, n);
            }
            return Arrays.stream(v).asLongStream().toArray();
        }
        throw new TensorFormatException(source, name, "has ONNX data type " + dataType
            + ", but an integer tensor (INT64 or INT32) is needed");
    }

    private void checkStoredHere() throws TensorFormatException {
        if (external) {
            throw new TensorFormatException(source, name, "is stored as external data (in a separate file), "
                + "which is not supported: save the model with its tensors inside the .onnx file");
        }
    }

    private int count() throws TensorFormatException {
        for (long d : dims) {
            if (d < 0) {
                throw new TensorFormatException(source, name, "has a negative dimension: " + Arrays.toString(dims));
            }
        }
        long n = elementCount();
        if (n > SafeTensors.MAX_ARRAY_LENGTH) {
            throw new TensorFormatException(source, name, "has dims " + Arrays.toString(dims)
                + ": more elements than one array holds");
        }
        return (int) n;
    }

    private void checkRaw(int n, int width) throws TensorFormatException {
        if (raw.remaining() != (long) n * width) {
            throw new TensorFormatException(source, name, "raw_data holds " + raw.remaining() + " bytes, but dims "
                + Arrays.toString(dims) + " need " + (long) n * width);
        }
    }

    private <A> A checkedLength(A data, int n) throws TensorFormatException {
        int have = data == null ? 0 : java.lang.reflect.Array.getLength(data);
        if (have != n) {
            throw new TensorFormatException(source, name, "holds " + have + " values, but dims "
                + Arrays.toString(dims) + " need " + n);
        }
        return data;
    }
}

package io.sparkattention.io;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;

/**
 * A tensor to write: an element type, a shape and a row-major Java array whose length is the
 * shape's product. The array is kept, not copied, and must not change until it has been written.
 *
 * <pre>{@code
 * Tensor w = Tensor.f32(weights, rows, cols);
 * }</pre>
 */
public final class Tensor {

    private final DType dtype;
    private final long[] shape;
    private final int length;
    private final Object data;

    private Tensor(DType dtype, long[] shape, int length, Object data) {
        Objects.requireNonNull(shape, "shape");
        long count = 1;
        for (long d : shape) {
            if (d < 0) {
                throw new IllegalArgumentException("shape " + Arrays.toString(shape) + " has a negative dimension");
            }
            count = Math.multiplyExact(count, d);
        }
        if (count != length) {
            throw new IllegalArgumentException("shape " + Arrays.toString(shape) + " holds " + count
                + " elements, but the array has " + length);
        }
        this.dtype = dtype;
        this.shape = shape.clone();
        this.length = length;
        this.data = data;
    }

    /**
     * A float32 (F32) tensor.
     *
     * @param data  the elements, row-major
     * @param shape the dimensions; their product must equal {@code data.length}
     * @return the tensor
     * @throws IllegalArgumentException when the shape does not match the data
     */
    public static Tensor f32(float[] data, long... shape) {
        return new Tensor(DType.F32, shape, Objects.requireNonNull(data, "data").length, data);
    }

    /**
     * A float32 (F32) tensor whose elements are several arrays one after the other, as PyTorch's
     * {@code in_proj_weight} stacks the query, key and value projections: the arrays are kept, not
     * copied into one, so writing a large stacked tensor needs no second copy of it.
     *
     * @param parts the elements, row-major, in consecutive pieces
     * @param shape the dimensions; their product must equal the pieces' total length
     * @return the tensor
     * @throws IllegalArgumentException when the shape does not match the data, or the total
     *     exceeds the largest Java array
     */
    public static Tensor f32Stacked(float[][] parts, long... shape) {
        Objects.requireNonNull(parts, "parts");
        long total = 0;
        for (float[] part : parts) {
            total += Objects.requireNonNull(part, "part").length;
        }
        if (total > SafeTensors.MAX_ARRAY_LENGTH) {
            throw new IllegalArgumentException("stacked tensor of " + total + " elements exceeds "
                + SafeTensors.MAX_ARRAY_LENGTH);
        }
        return new Tensor(DType.F32, shape, (int) total, parts.clone());
    }

    /**
     * A float64 (F64) tensor.
     *
     * @param data  the elements, row-major
     * @param shape the dimensions; their product must equal {@code data.length}
     * @return the tensor
     * @throws IllegalArgumentException when the shape does not match the data
     */
    public static Tensor f64(double[] data, long... shape) {
        return new Tensor(DType.F64, shape, Objects.requireNonNull(data, "data").length, data);
    }

    /**
     * A 64-bit integer (I64) tensor, PyTorch's default integer type.
     *
     * @param data  the elements, row-major
     * @param shape the dimensions; their product must equal {@code data.length}
     * @return the tensor
     * @throws IllegalArgumentException when the shape does not match the data
     */
    public static Tensor i64(long[] data, long... shape) {
        return new Tensor(DType.I64, shape, Objects.requireNonNull(data, "data").length, data);
    }

    /**
     * A 32-bit integer (I32) tensor.
     *
     * @param data  the elements, row-major
     * @param shape the dimensions; their product must equal {@code data.length}
     * @return the tensor
     * @throws IllegalArgumentException when the shape does not match the data
     */
    public static Tensor i32(int[] data, long... shape) {
        return new Tensor(DType.I32, shape, Objects.requireNonNull(data, "data").length, data);
    }

    /**
     * A boolean (BOOL, one byte each) tensor.
     *
     * @param data  the elements, row-major
     * @param shape the dimensions; their product must equal {@code data.length}
     * @return the tensor
     * @throws IllegalArgumentException when the shape does not match the data
     */
    public static Tensor bool(boolean[] data, long... shape) {
        return new Tensor(DType.BOOL, shape, Objects.requireNonNull(data, "data").length, data);
    }

    /**
     * The element type.
     *
     * @return the dtype written to the header
     */
    public DType dtype() {
        return dtype;
    }

    /**
     * The dimensions, outermost first.
     *
     * @return a fresh copy
     */
    public long[] shape() {
        return shape.clone();
    }

    /**
     * The number of elements.
     *
     * @return the product of the shape
     */
    public int elementCount() {
        return length;
    }

    /**
     * The size of the tensor's data in a file.
     *
     * @return element count × dtype width, in bytes
     */
    public long byteSize() {
        return (long) length * dtype.width();
    }

    /** Puts elements {@code [from, from + n)} into {@code dst}, little-endian. */
    void encode(int from, int n, ByteBuffer dst) {
        switch (dtype) {
            case F32:
                if (data instanceof float[][]) {
                    encodeStacked((float[][]) data, from, n, dst);
                } else {
                    dst.asFloatBuffer().put((float[]) data, from, n);
                    dst.position(dst.position() + n * Float.BYTES);
                }
                break;
            case F64:
                dst.asDoubleBuffer().put((double[]) data, from, n);
                dst.position(dst.position() + n * Double.BYTES);
                break;
            case I64:
                dst.asLongBuffer().put((long[]) data, from, n);
                dst.position(dst.position() + n * Long.BYTES);
                break;
            case I32:
                dst.asIntBuffer().put((int[]) data, from, n);
                dst.position(dst.position() + n * Integer.BYTES);
                break;
            case BOOL:
                boolean[] b = (boolean[]) data;
                for (int i = from; i < from + n; i++) {
                    dst.put(b[i] ? (byte) 1 : (byte) 0);
                }
                break;
            default:
                throw new IllegalStateException("no encoder for " + dtype);
        }
    }

    /** {@link #encode} over consecutive pieces: elements {@code [from, from + n)} of their concatenation. */
    private static void encodeStacked(float[][] parts, int from, int n, ByteBuffer dst) {
        int skip = from;
        int left = n;
        for (float[] part : parts) {
            if (left == 0) {
                break;
            }
            if (skip >= part.length) {
                skip -= part.length;
                continue;
            }
            int take = Math.min(left, part.length - skip);
            dst.asFloatBuffer().put(part, skip, take);
            dst.position(dst.position() + take * Float.BYTES);
            skip = 0;
            left -= take;
        }
    }

    /**
     * Describes the tensor without its data.
     *
     * @return dtype and shape
     */
    @Override
    public String toString() {
        return "Tensor[" + dtype + " " + Arrays.toString(shape) + "]";
    }
}

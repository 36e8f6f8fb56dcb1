package io.sparkattention.io;

import java.util.Arrays;
import java.util.function.Predicate;

/**
 * One validated header entry: where a tensor's bytes lie in the data section and how to read them.
 *
 * @param name         the tensor's name
 * @param dtype        its element type
 * @param shape        its dimensions (never shared with callers: {@link SafeTensors} hands out copies)
 * @param elementCount the product of {@code shape}, known not to overflow
 * @param begin        first byte, relative to the data section
 * @param end          one past the last byte, relative to the data section
 */
record TensorEntry(String name, DType dtype, long[] shape, long elementCount, long begin, long end) {

    /**
     * This entry, when its dtype is of the kind a reader expects.
     *
     * @param kind     which dtypes the reader takes
     * @param source   how the error names the file
     * @param expected the kind, for the error
     * @return this entry
     * @throws TensorFormatException naming the tensor and its dtype otherwise
     */
    TensorEntry requireDtype(Predicate<DType> kind, String source, String expected) throws TensorFormatException {
        if (!kind.test(dtype)) {
            throw new TensorFormatException(source, name, "has dtype " + dtype + ", expected " + expected);
        }
        return this;
    }

    /**
     * The shape as ints, for code that indexes Java arrays.
     *
     * @param source how the error names the file
     * @return a fresh array
     * @throws TensorFormatException naming the tensor when a dimension exceeds {@link Integer#MAX_VALUE}
     */
    int[] intShape(String source) throws TensorFormatException {
        int[] out = new int[shape.length];
        for (int i = 0; i < out.length; i++) {
            if (shape[i] > Integer.MAX_VALUE) {
                throw new TensorFormatException(source, name, "dimension " + i + " of shape "
                    + Arrays.toString(shape) + " exceeds " + Integer.MAX_VALUE);
            }
            out[i] = (int) shape[i];
        }
        return out;
    }
}

package io.sparkattention.io;

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
}

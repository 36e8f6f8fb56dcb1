package io.sparkattention.io;

/**
 * An array read from a {@code .npy} file, as float32. The arrays are the reader's own and are
 * handed over, not copied.
 *
 * @param shape the dimensions, outermost first (none for a 0-d array)
 * @param data  the elements, row-major (C order), converted to float32
 * @param descr the numpy dtype the file stored, {@code "<f4"} or {@code "<f8"}; {@code "<f8"}
 *              values were rounded to nearest float32
 */
public record NpyArray(long[] shape, float[] data, String descr) {
}

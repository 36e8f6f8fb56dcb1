/**
 * The row codec every stage uses: one row's sequence column as a row-major float32 matrix and
 * back. A {@link io.sparkattention.rows.SequenceDecoder} reads nested columns
 * ({@link io.sparkattention.rows.MatrixType}: {@code array<array<float>>},
 * {@code array<array<double>>}, {@code array<vector>}) and flat ones
 * ({@link io.sparkattention.rows.FlatSequence}: one {@code array<float>} or {@code array<double>}
 * of L·W values, its width in the column's metadata, see
 * {@link io.sparkattention.rows.SequenceLayout}); {@link io.sparkattention.rows.PlaneColumn} reads
 * per-row mask and bias planes; {@link io.sparkattention.rows.NestedArrays} writes the nested
 * output. Values are read and written in Spark's Catalyst array layout in place, one bulk copy per
 * matrix row; {@link io.sparkattention.rows.RowBuffers} reuses a task's arrays across rows, and
 * {@link io.sparkattention.rows.RowDataException} names the column (and row) of unusable data.
 * {@link io.sparkattention.rows.TokenIds} is the one check of a row's token ids, for every stage
 * that reads them.
 */
package io.sparkattention.rows;

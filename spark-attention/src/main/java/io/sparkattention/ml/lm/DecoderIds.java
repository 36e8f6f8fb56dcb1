package io.sparkattention.ml.lm;

import io.sparkattention.rows.RowDataException;
import org.apache.spark.sql.catalyst.util.ArrayData;

import java.io.Serializable;

/**
 * How the language model's stage reads a row's token ids ({@code array<int>} or
 * {@code array<bigint>}) and checks them against the decoder: every id in [0, vocabulary), at most
 * {@code maxLength} of them; errors name the column and the position. A null array is an error
 * or a row kept without outputs, as {@code handleInvalid} says.
 */
final class DecoderIds implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String column;
    private final boolean longIds;
    private final boolean nullIsError;
    private final int vocabSize;

    /**
     * @param column      the ids' column, named in errors
     * @param longIds     whether it holds {@code array<bigint>} rather than {@code array<int>}
     * @param nullIsError whether a null array is an error (handleInvalid = error) or a row without outputs
     * @param vocabSize   ids must be in [0, vocabSize)
     */
    DecoderIds(String column, boolean longIds, boolean nullIsError, int vocabSize) {
        this.column = column;
        this.longIds = longIds;
        this.nullIsError = nullIsError;
        this.vocabSize = vocabSize;
    }

    /**
     * A row's ids.
     *
     * @param value     the column's Catalyst value, or null
     * @param minLength the fewest ids the row may have (1 for a prompt)
     * @param maxLength the most ids it may have, and what limits it (named in the error)
     * @return the ids, or null for a null value when nulls are kept
     * @throws RowDataException naming the column (and position) for a null array or id, an id
     *                          outside the vocabulary, or a length outside the bounds
     */
    int[] read(Object value, int minLength, int maxLength, String limit) {
        if (value == null) {
            if (nullIsError) {
                throw new RowDataException("column " + column + " is null (handleInvalid = error; skip drops such "
                    + "rows, keep gives null outputs)");
            }
            return null;
        }
        ArrayData array = (ArrayData) value;
        int n = array.numElements();
        if (n < minLength) {
            throw new RowDataException("column " + column + " has " + n + " token ids; generation needs at least "
                + minLength);
        }
        if (n > maxLength) {
            throw new RowDataException("column " + column + " has " + n + " token ids, " + limit);
        }
        int[] ids = new int[n];
        for (int i = 0; i < n; i++) {
            if (array.isNullAt(i)) {
                throw new RowDataException("column " + column + " has a null token id at position " + i);
            }
            long id = longIds ? array.getLong(i) : array.getInt(i);
            if (id < 0 || id >= vocabSize) {
                throw new RowDataException("column " + column + ": token id " + id + " at position " + i
                    + " is outside the model's vocabulary [0, " + vocabSize + ")");
            }
            ids[i] = (int) id;
        }
        return ids;
    }
}

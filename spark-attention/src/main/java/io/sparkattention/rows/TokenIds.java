package io.sparkattention.rows;

import org.apache.spark.sql.catalyst.util.ArrayData;

import java.io.Serializable;
import java.util.Objects;

/**
 * The one check of a row's token ids, for every stage that reads them (the encoder, the BERT
 * classifier in training and prediction, the language model in training, scoring and generation):
 * an {@code array<int>} or {@code array<bigint>} column (as {@code HuggingFaceTokenizer} writes
 * it), every id in the model's vocabulary, the row's length within bounds its caller sets (at
 * least one token to classify or to generate from, none needed to encode or score; at most the
 * model's positions, or what a prompt leaves of them). Errors name the column, the position and
 * the bad id; the caller adds the row. A null array is an error or a row kept without outputs, as
 * {@code handleInvalid} says.
 */
public final class TokenIds implements Serializable {

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
    public TokenIds(String column, boolean longIds, boolean nullIsError, int vocabSize) {
        this.column = Objects.requireNonNull(column, "column");
        if (vocabSize < 1) {
            throw new IllegalArgumentException("vocabSize must be >= 1, got " + vocabSize);
        }
        this.longIds = longIds;
        this.nullIsError = nullIsError;
        this.vocabSize = vocabSize;
    }

    /** The usual upper bound's words: "more than the {@code whose} {@code positions} positions". */
    public static String positions(String whose, int positions) {
        return "more than the " + whose + " " + positions + " positions";
    }

    /** {@link #read(Object, int, int, String)} up to the model's {@code positions}. */
    public int[] read(Object value, int minLength, int positions) {
        return read(value, minLength, positions, positions("model's", positions));
    }

    /** {@link #check(int[], int, int, String)} up to the model's {@code positions}. */
    public int[] check(int[] ids, int minLength, int positions) {
        return check(ids, minLength, positions, positions("model's", positions));
    }

    /**
     * A row's ids.
     *
     * @param value     the column's Catalyst value ({@link ArrayData}), or null
     * @param minLength the fewest ids the row may have
     * @param maxLength the most ids it may have
     * @param limit     what {@code maxLength} is, for the error ({@link #positions})
     * @return the ids, or null for a null value when nulls are kept
     * @throws RowDataException naming the column (and position) for a null array or id, an id
     *                          outside the vocabulary, or a length outside the bounds
     */
    public int[] read(Object value, int minLength, int maxLength, String limit) {
        if (value == null) {
            if (nullIsError) {
                throw new RowDataException("column " + column + " is null (handleInvalid = error; skip drops such "
                    + "rows, keep gives null outputs)");
            }
            return null;
        }
        ArrayData array = (ArrayData) value;
        int n = array.numElements();
        checkLength(n, minLength, maxLength, limit);
        int[] ids = new int[n];
        for (int i = 0; i < n; i++) {
            if (array.isNullAt(i)) {
                throw new RowDataException("column " + column + " has a null token id at position " + i);
            }
            ids[i] = checkId(longIds ? array.getLong(i) : array.getInt(i), i);
        }
        return ids;
    }

    /**
     * The same checks on ids given as Java values (a single row to predict).
     *
     * @return ids, unchanged
     * @throws RowDataException as {@link #read}
     */
    public int[] check(int[] ids, int minLength, int maxLength, String limit) {
        Objects.requireNonNull(ids, "ids");
        checkLength(ids.length, minLength, maxLength, limit);
        for (int i = 0; i < ids.length; i++) {
            checkId(ids[i], i);
        }
        return ids;
    }

    private void checkLength(int n, int minLength, int maxLength, String limit) {
        if (n < minLength) {
            throw new RowDataException("column " + column + " has " + n + " token ids; a row needs at least "
                + minLength);
        }
        if (n > maxLength) {
            throw new RowDataException("column " + column + " has " + n + " token ids, " + limit);
        }
    }

    private int checkId(long id, int position) {
        if (id < 0 || id >= vocabSize) {
            throw new RowDataException("column " + column + ": token id " + id + " at position " + position
                + " is outside the model's vocabulary [0, " + vocabSize + ")");
        }
        return (int) id;
    }
}

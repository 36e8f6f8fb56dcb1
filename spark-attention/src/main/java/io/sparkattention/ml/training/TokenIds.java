package io.sparkattention.ml.training;

import io.sparkattention.rows.RowDataException;
import org.apache.spark.sql.catalyst.util.ArrayData;

/**
 * The one check of a row's token ids, for every family that trains on them: {@code array<int>} or
 * {@code array<bigint>} (as {@code HuggingFaceTokenizer} writes them), checked against the model:
 * at least one id, at most its positions, each in its vocabulary; a problem names the column and
 * the position of a bad id.
 */
public final class TokenIds {

    private TokenIds() {
    }

    /** The ids of a Catalyst array; a null element or a long id beyond int's range reads as -1 (refused by {@link #problem}). */
    public static int[] read(ArrayData array, boolean longIds) {
        int n = array.numElements();
        int[] ids = new int[n];
        for (int i = 0; i < n; i++) {
            if (array.isNullAt(i)) {
                ids[i] = -1;
            } else if (longIds) {
                long v = array.getLong(i);
                ids[i] = v < 0 || v > Integer.MAX_VALUE ? -1 : (int) v;
            } else {
                ids[i] = array.getInt(i);
            }
        }
        return ids;
    }

    /**
     * The ids of a row to predict: {@link #read}, then {@link #problem} against the model.
     *
     * @throws RowDataException naming the column when the ids do not fit the model
     */
    public static int[] checked(ArrayData array, boolean longIds, String column, int vocabSize, int maxPositions) {
        int[] ids = read(array, longIds);
        String problem = problem(ids, column, vocabSize, maxPositions);
        if (problem != null) {
            throw new RowDataException(problem);
        }
        return ids;
    }

    /**
     * What is wrong with a row's ids, naming the column (and the position of a bad id), or null.
     *
     * @param vocabSize    ids must be in [0, vocabSize)
     * @param maxPositions a row holds at most this many ids
     */
    public static String problem(int[] ids, String column, int vocabSize, int maxPositions) {
        if (ids.length == 0) {
            return "column " + column + " is empty; a row needs at least one token";
        }
        if (ids.length > maxPositions) {
            return "column " + column + " has " + ids.length + " tokens, more than the encoder's " + maxPositions
                + " positions";
        }
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] < 0 || ids[i] >= vocabSize) {
                return "column " + column + " has token id " + (ids[i] < 0 ? "null, negative or beyond int" : ids[i])
                    + " at position " + i + ", outside the encoder's vocabulary [0, " + vocabSize + ")";
            }
        }
        return null;
    }
}

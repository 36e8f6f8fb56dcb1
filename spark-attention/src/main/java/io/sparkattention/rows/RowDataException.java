package io.sparkattention.rows;

/**
 * A row's data is unusable: ragged matrix, NaN, key length out of range, mask of the wrong shape.
 * Thrown inside tasks with a message naming the column; the execution layer prefixes the row
 * ("row 17: column query row 3 has 63 values, expected 64") before it reaches the user.
 */
public class RowDataException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    public RowDataException(String message) {
        super(message);
    }

    /** The same problem, located: {@code "<row>: <message>"}. */
    public RowDataException at(String row) {
        RowDataException located = new RowDataException(row + ": " + getMessage());
        located.setStackTrace(getStackTrace());
        return located;
    }
}

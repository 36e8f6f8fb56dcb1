package io.sparkattention.examples.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.spark.SparkThrowable;
import org.apache.spark.sql.types.StructField;

import java.util.Map;

/**
 * A JSON record Spark could not read with the declared schema (FAILFAST's bad record), traced to
 * its file and line: Spark names the file and gives the record's text; the file is searched for
 * that line on the driver (only after a failure), and the line is checked column by column so
 * that the message says which known column holds what.
 */
final class BadRecords {

    private BadRecords() {
    }

    /**
     * The bad-input error for a failed read of {@code table}, or null when {@code e} is not a
     * bad JSON record or its line cannot be found.
     */
    static BadInputException describe(Throwable e, InputTable table) {
        if (table == null || table.jsonLines == null) {
            return null;
        }
        String record = null;
        String file = null;
        Throwable cause = null;
        for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
            if (t instanceof SparkThrowable) {
                String condition = ((SparkThrowable) t).getCondition();
                Map<String, String> parameters = ((SparkThrowable) t).getMessageParameters();
                if (condition != null && condition.startsWith("FAILED_READ_FILE") && parameters.containsKey("path")) {
                    file = parameters.get("path");
                }
                if (condition != null && condition.startsWith("MALFORMED_RECORD") && parameters.containsKey("badRecord")) {
                    record = parameters.get("badRecord");
                    cause = t.getCause();
                }
            }
        }
        if (record == null || file == null) {
            return null;
        }
        JsonLines lines = table.jsonLines;
        JsonLines.Line line = lines.find(file, record);
        if (line == null) {
            return null;
        }
        JsonNode tree = lines.parse(line);
        String where = "--input " + table.path + ": " + lines.where(line) + ": ";
        for (StructField f : table.rows.schema().fields()) {
            ColumnKind kind = table.known.get(f.name());
            int depth = DeclaredSchema.depth(f.dataType());
            if (kind == null || !f.dataType().equals(kind.type(depth))) {
                continue;
            }
            String mismatch = kind.mismatch(tree.get(f.name()), depth);
            if (mismatch != null) {
                return new BadInputException(where + "column " + f.name() + ": expected " + kind.typeName(depth)
                    + " (as the first lines), but " + mismatch, e);
            }
        }
        String reason = cause == null || cause.getMessage() == null ? "" : " ("
            + ErrorReporting.oneLine(cause.getMessage()) + ")";
        return new BadInputException(where + "cannot read the record with the columns' types learnt from the first "
            + "lines" + reason, e);
    }
}

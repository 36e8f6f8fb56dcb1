package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import com.fasterxml.jackson.databind.JsonNode;
import org.apache.spark.SparkThrowable;
import org.apache.spark.sql.catalyst.util.BadRecordException;
import org.apache.spark.sql.types.StructField;

/**
 * A record Spark could not read (FAILFAST's bad record): a CSV one named by its line
 * ({@link CsvRecords}); a JSON one, read with the declared schema, traced to
 * its file and line after the failure, on the driver: Spark names the file, and its
 * {@link BadRecordException} carries the record's text, which is looked up line by line; when
 * the text is not at hand, the file's first line that is malformed or holds a known column of
 * another kind is taken. The line is then checked column by column, so that the message says
 * which known column holds what.
 */
final class BadRecords {

    private BadRecords() {
    }

    /**
     * The bad-input error for a failed read of {@code table}, or null when {@code e} is not a
     * bad JSON or CSV record or its line cannot be found.
     */
    static BadInputException describe(Throwable e, InputTable table) {
        if (table == null || table.jsonLines == null && table.csv == null) {
            return null;
        }
        String file = null;
        boolean malformed = false;
        BadRecordException bad = null;
        for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
            if (t instanceof SparkThrowable) {
                String condition = ((SparkThrowable) t).getCondition();
                String path = ((SparkThrowable) t).getMessageParameters().get("path");
                if (condition != null && condition.startsWith("FAILED_READ_FILE") && path != null) {
                    file = path;
                }
                malformed |= condition != null && condition.startsWith("MALFORMED_RECORD");
            }
            if (t instanceof BadRecordException) {
                bad = (BadRecordException) t;
            }
        }
        if (bad == null && !malformed) {
            return null;
        }
        if (table.csv != null) {
            // A CSV record is malformed by its shape alone: named by the line it starts on.
            String problem = table.csv.malformed(file);
            return problem == null ? null : new BadInputException(problem, e);
        }
        JsonLines lines = table.jsonLines;
        String record = bad == null ? null : text(bad);
        JsonLines.Line line = record == null ? null : lines.find(file, l -> l.text.equals(record));
        if (line == null) {
            line = lines.find(file, l -> problem(table, l) != null);
        }
        if (line == null) {
            return null;
        }
        String problem = problem(table, line);
        if (problem != null) {
            return new BadInputException(problem, e);
        }
        Throwable cause = bad != null ? bad.getCause() : null;
        String reason = cause == null || cause.getMessage() == null ? "" : " ("
            + ErrorReporting.oneLine(cause.getMessage()) + ")";
        return new BadInputException("--input " + table.path + ": " + lines.where(line) + ": cannot read the record "
            + "with the column types learnt from the first lines" + reason, e);
    }

    /** The record's text, when Spark kept it. */
    private static String text(BadRecordException bad) {
        try {
            Object text = bad.record().apply();
            return text == null ? null : text.toString();
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** What is wrong with the line: malformed, or a known column of another kind; null when neither. */
    private static String problem(InputTable table, JsonLines.Line line) {
        JsonNode tree;
        try {
            tree = table.jsonLines.parse(line);
        } catch (BadInputException e) {
            return e.getMessage();
        }
        for (StructField f : table.rows.schema().fields()) {
            ColumnKind kind = table.known.get(f.name());
            int depth = DeclaredSchema.depth(f.dataType());
            if (kind == null || !f.dataType().equals(kind.type(depth))) {
                continue;
            }
            String mismatch = kind.mismatch(tree.get(f.name()), depth);
            if (mismatch != null) {
                return "--input " + table.path + ": " + table.jsonLines.where(line) + ": column " + f.name()
                    + ": expected " + kind.typeName(depth) + " (as the first lines), but " + mismatch;
            }
        }
        return null;
    }
}

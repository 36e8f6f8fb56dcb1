package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import com.fasterxml.jackson.databind.JsonNode;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The schema a command reads JSON lines with, learnt from the input's first lines instead of a
 * pass over all of it.
 *
 * <p>The first lines ({@link #SAMPLE_LINES}, or fewer once {@link #SAMPLE_CHARS} characters are
 * read) give the columns and, through Spark's own inference on those lines alone, the types of
 * the columns the command does not know; those are kept and written out as Spark would read them.
 * The columns the command knows get its {@link ColumnKind}'s type: matrices as
 * {@code array<array<double>>} (so an all-empty {@code []} column is still a matrix column), masks
 * and biases with the depth of their first non-empty value (shared L×S planes, or H×L×S per
 * head). A known column whose first value is of another kind keeps the type found, so that the
 * stage names the column, the expected and the found type; a later sampled value of another kind
 * or depth is an error naming the line.
 */
final class DeclaredSchema {

    /** Lines the columns are learnt from: enough to see optional columns, few enough to cost nothing. */
    static final int SAMPLE_LINES = 100;
    /** Characters after which sampling stops (at least one line is read): about 1 MiB. */
    static final long SAMPLE_CHARS = 1L << 20;

    private DeclaredSchema() {
    }

    /**
     * The schema of {@code lines}.
     *
     * @param known the columns the command knows, by name
     * @return the columns in Spark's order (by name, as its inference gives them); none for an
     *         input without records
     * @throws BadInputException naming the line of a malformed sampled record, or of a known
     *                           column's value of another kind or depth than the first
     */
    static StructType of(SparkSession spark, JsonLines lines, Map<String, ColumnKind> known) {
        List<JsonLines.Line> sample = lines.first(SAMPLE_LINES, SAMPLE_CHARS);
        List<JsonNode> trees = new ArrayList<>();
        List<String> texts = new ArrayList<>();
        for (JsonLines.Line line : sample) {
            trees.add(lines.parse(line));
            texts.add(line.text);
        }
        if (sample.isEmpty()) {
            return new StructType();
        }
        StructType found = spark.read().option("mode", "FAILFAST").json(spark.createDataset(texts, Encoders.STRING()))
            .schema();
        StructType out = new StructType();
        for (StructField f : found.fields()) {
            ColumnKind kind = known.get(f.name());
            DataType type = kind == null ? f.dataType() : declare(lines, sample, trees, f, kind);
            out = out.add(new StructField(f.name(), type, true, f.metadata()));
        }
        return out;
    }

    /** The known column's type: its kind's, or the found type when the first value is of another kind. */
    private static DataType declare(JsonLines lines, List<JsonLines.Line> sample, List<JsonNode> trees, StructField f,
                                    ColumnKind kind) {
        int depth = kind.defaultDepth();
        int decidedBy = -1;
        if (kind.hasPlanes()) {
            for (int i = 0; i < trees.size() && decidedBy < 0; i++) {
                int d = ColumnKind.depth(trees.get(i).get(f.name()));
                if (d >= 0) {
                    depth = d;
                    decidedBy = i;
                }
            }
            if (!kind.allows(depth)) {
                return f.dataType();
            }
        }
        boolean first = true;
        for (int i = 0; i < trees.size(); i++) {
            JsonNode value = trees.get(i).get(f.name());
            if (value == null || value.isNull()) {
                continue;
            }
            String mismatch = kind.mismatch(value, depth);
            if (mismatch != null && first) {
                return f.dataType();
            }
            if (mismatch != null) {
                throw new BadInputException("--input " + lines.input + ": " + lines.where(sample.get(i)) + ": column "
                    + f.name() + ": expected " + kind.typeName(depth)
                    + (decidedBy >= 0 ? " (the depth of " + lines.where(sample.get(decidedBy)) + ")" : "")
                    + ", but " + mismatch);
            }
            first = false;
        }
        return kind.type(depth);
    }

    /** The depth of arrays of a declared type. */
    static int depth(DataType type) {
        int d = 0;
        for (DataType t = type; t instanceof ArrayType; t = ((ArrayType) t).elementType()) {
            d++;
        }
        return d;
    }
}

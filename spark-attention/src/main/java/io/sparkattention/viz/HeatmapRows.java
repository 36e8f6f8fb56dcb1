package io.sparkattention.viz;

import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.NumericType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.jdk.javaapi.CollectionConverters;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Heatmaps of Spark rows: reads one row's attention-weights column (and its tokens) into an
 * {@link AttentionHeatmap}.
 *
 * <pre>{@code
 * Row row = output.filter(col("id").equalTo(17)).first();
 * HeatmapRows.fromRow(row, "attn_weights", "tokens").title("Passage 17").writePng(Path.of("p17.png"));
 * }</pre>
 *
 * <p>The weights column is {@code array<array<float>>} (L×S, e.g. weights averaged over heads) or
 * {@code array<array<array<float>>>} (H×L×S per head); any numeric element type is accepted (JSON
 * readers infer {@code double}), and a null element is drawn as masked. The tokens column is
 * {@code array<string>}. The row must carry its schema, as the rows of a {@code Dataset<Row>} do.
 */
public final class HeatmapRows {

    private HeatmapRows() {
    }

    /**
     * The heatmap of one row, with the same tokens on both axes (self-attention).
     *
     * @param row           a row with a schema
     * @param weightsColumn L×S or H×L×S weights
     * @param tokensColumn  {@code array<string>} labelling queries and keys; null for index labels
     * @return the heatmap
     * @throws IllegalArgumentException naming the column when it is missing, null, of the wrong
     *                                  type, ragged, or its tokens do not match the weights
     */
    public static AttentionHeatmap fromRow(Row row, String weightsColumn, String tokensColumn) {
        return fromRow(row, weightsColumn, tokensColumn, null);
    }

    /**
     * The heatmap of one row, with separate query tokens (cross-attention: L ≠ S).
     *
     * @param row                a row with a schema
     * @param weightsColumn      L×S or H×L×S weights
     * @param keyTokensColumn    {@code array<string>} of S key tokens (and the query tokens when
     *                           {@code queryTokensColumn} is null); null for index labels
     * @param queryTokensColumn  {@code array<string>} of L query tokens; null to use the key tokens
     * @return the heatmap
     * @throws IllegalArgumentException naming the column when it is missing, null, of the wrong
     *                                  type, ragged, or its tokens do not match the weights
     */
    public static AttentionHeatmap fromRow(Row row, String weightsColumn, String keyTokensColumn,
                                           String queryTokensColumn) {
        if (row == null) {
            throw new IllegalArgumentException("no row given");
        }
        StructType schema = row.schema();
        if (schema == null) {
            throw new IllegalArgumentException("the row has no schema: pass a row of a DataFrame (Dataset<Row>)");
        }
        AttentionHeatmap heatmap = weights(row, schema, weightsColumn);
        if (keyTokensColumn != null) {
            List<String> keys = tokens(row, schema, keyTokensColumn);
            heatmap = heatmap.keyTokens(matching(keys, heatmap.keyLength(), keyTokensColumn, "S (keys)", weightsColumn));
            if (queryTokensColumn == null) {
                heatmap = heatmap.queryTokens(matching(keys, heatmap.queryLength(), keyTokensColumn, "L (queries)",
                    weightsColumn));
            }
        }
        if (queryTokensColumn != null) {
            List<String> queries = tokens(row, schema, queryTokensColumn);
            heatmap = heatmap.queryTokens(matching(queries, heatmap.queryLength(), queryTokensColumn, "L (queries)",
                weightsColumn));
        }
        return heatmap;
    }

    /** The weights of {@code column}: depth 2 is L×S, depth 3 is H×L×S. */
    private static AttentionHeatmap weights(Row row, StructType schema, String column) {
        DataType type = field(schema, column).dataType();
        int depth = 0;
        while (type instanceof ArrayType) {
            type = ((ArrayType) type).elementType();
            depth++;
        }
        if (!(type instanceof NumericType) || depth < 2 || depth > 3) {
            throw new IllegalArgumentException("column '" + column + "' has type " + field(schema, column).dataType()
                .simpleString() + ", expected array<array<float>> (L×S) or array<array<array<float>>> (H×L×S)");
        }
        Object value = row.get(schema.fieldIndex(column));
        if (value == null) {
            throw new IllegalArgumentException("column '" + column + "' is null in this row");
        }
        if (depth == 2) {
            float[][][] weights = {matrix(list(value), column, "")};
            check(weights, column, false);
            return AttentionHeatmap.of(weights[0]);
        }
        List<Object> heads = list(value);
        if (heads.isEmpty()) {
            throw new IllegalArgumentException("column '" + column + "' has no heads in this row");
        }
        float[][][] weights = new float[heads.size()][][];
        for (int h = 0; h < heads.size(); h++) {
            if (heads.get(h) == null) {
                throw new IllegalArgumentException("column '" + column + "': head " + h + " is null");
            }
            weights[h] = matrix(list(heads.get(h)), column, "head " + h + ", ");
        }
        check(weights, column, true);
        return AttentionHeatmap.of(weights);
    }

    /** An L×S matrix (possibly ragged: {@link #check} reports that). */
    private static float[][] matrix(List<Object> rows, String column, String where) {
        if (rows.isEmpty()) {
            throw new IllegalArgumentException("column '" + column + "': " + where + "no query rows in this row");
        }
        float[][] m = new float[rows.size()][];
        for (int i = 0; i < rows.size(); i++) {
            Object r = rows.get(i);
            if (r == null) {
                throw new IllegalArgumentException("column '" + column + "': " + where + "query " + i + " is null");
            }
            List<Object> values = list(r);
            m[i] = new float[values.size()];
            for (int j = 0; j < values.size(); j++) {
                Object x = values.get(j);
                m[i][j] = x == null ? Float.NaN : ((Number) x).floatValue();
            }
        }
        return m;
    }

    /** Same-shaped heads and rows, reported with the column's name. */
    private static void check(float[][][] weights, String column, boolean perHead) {
        int L = weights[0].length, S = weights[0][0].length;
        if (S == 0) {
            throw new IllegalArgumentException("column '" + column + "': query 0 has no weights in this row");
        }
        for (int h = 0; h < weights.length; h++) {
            String head = perHead ? "head " + h + ", " : "";
            if (weights[h].length != L) {
                throw new IllegalArgumentException("column '" + column + "': head " + h + " has " + weights[h].length
                    + " query rows, head 0 has " + L);
            }
            for (int i = 0; i < L; i++) {
                if (weights[h][i].length != S) {
                    throw new IllegalArgumentException("column '" + column + "': " + head + "query " + i + " has "
                        + weights[h][i].length + " weights, expected S = " + S);
                }
            }
        }
    }

    private static List<String> tokens(Row row, StructType schema, String column) {
        DataType type = field(schema, column).dataType();
        if (!(type instanceof ArrayType) || !(((ArrayType) type).elementType() instanceof StringType)) {
            throw new IllegalArgumentException("column '" + column + "' has type " + type.simpleString()
                + ", expected array<string> (tokens)");
        }
        Object value = row.get(schema.fieldIndex(column));
        if (value == null) {
            throw new IllegalArgumentException("column '" + column + "' is null in this row");
        }
        List<String> tokens = new ArrayList<>();
        for (Object t : list(value)) {
            tokens.add((String) t);
        }
        return tokens;
    }

    private static List<String> matching(List<String> tokens, int expected, String column, String dim,
                                         String weightsColumn) {
        if (tokens.size() != expected) {
            throw new IllegalArgumentException("column '" + column + "' has " + tokens.size() + " tokens, but '"
                + weightsColumn + "' has " + dim + " = " + expected);
        }
        return tokens;
    }

    private static StructField field(StructType schema, String column) {
        for (StructField f : schema.fields()) {
            if (f.name().equals(column)) {
                return f;
            }
        }
        throw new IllegalArgumentException("no column '" + column + "' (columns: " + String.join(", ", schema.fieldNames())
            + ")");
    }

    /** Array values as a list: Spark gives Scala sequences (or Java lists / arrays from hand-made rows). */
    @SuppressWarnings("unchecked")
    private static List<Object> list(Object value) {
        if (value instanceof scala.collection.Seq) {
            return new ArrayList<>(CollectionConverters.asJava((scala.collection.Seq<Object>) value));
        }
        if (value instanceof List) {
            return (List<Object>) value;
        }
        if (value instanceof Object[]) {
            return Arrays.asList((Object[]) value);
        }
        throw new IllegalArgumentException("expected an array value, got " + value.getClass().getName());
    }
}

package io.sparkattention.ml;

import io.sparkattention.kernel.Heads;
import io.sparkattention.nn.MultiHeadAttentionWeights;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;

import java.util.List;

/**
 * The widths a multi-head attention layer is built for — {@code embed_dim} (query), {@code kdim}
 * (key) and {@code vdim} (value) — read from the first row of each column that has a non-empty
 * matrix (one small job per distinct column). A width is -1 when no row has one.
 */
final class ModelDimensions {

    private final String queryColumn;
    private final String keyColumn;
    private final String valueColumn;
    private final int embedDim;
    private final int kdim;
    private final int vdim;

    private ModelDimensions(String queryColumn, String keyColumn, String valueColumn, int embedDim, int kdim,
                            int vdim) {
        this.queryColumn = queryColumn;
        this.keyColumn = keyColumn;
        this.valueColumn = valueColumn;
        this.embedDim = embedDim;
        this.kdim = kdim;
        this.vdim = vdim;
    }

    /** The widths of {@code columns}: a flat column's own width, a nested one's first non-empty row's. */
    static ModelDimensions resolve(Dataset<?> dataset, AttentionStageJob.StageColumns columns) {
        int e = width(dataset, columns.query);
        int k = columns.key == columns.query ? e : width(dataset, columns.key);
        int v = columns.value == columns.key ? k : columns.value == columns.query ? e : width(dataset, columns.value);
        return new ModelDimensions(columns.query.name, columns.key.name, columns.value.name, e, k, v);
    }

    private static int width(Dataset<?> dataset, AttentionStageJob.StageColumns.Input input) {
        int fixed = input.type.fixedWidth();
        return fixed >= 1 ? fixed : width(dataset, input.name);
    }

    /** Values per row of the column's first non-empty matrix, or -1 when there is none. */
    private static int width(Dataset<?> dataset, String column) {
        Column c = functions.col("`" + column.replace("`", "``") + "`");
        List<Row> rows = dataset.toDF().select(c).where(c.isNotNull().and(functions.size(c).gt(0))).limit(1)
            .collectAsList();
        if (rows.isEmpty()) {
            return -1;
        }
        Object first = rows.get(0).getList(0).get(0);
        if (first == null) {
            throw new IllegalArgumentException("column " + column + ": the first non-empty row has a null at row 0, so "
                + "its width is unknown");
        }
        if (first instanceof Vector) {
            return ((Vector) first).size();
        }
        return ((scala.collection.Seq<?>) first).length();
    }

    int embedDim() {
        return embedDim;
    }

    int kdim() {
        return kdim;
    }

    int vdim() {
        return vdim;
    }

    /** Every width is known: initialising weights needs all three. */
    void requireAll() {
        require(embedDim, "embed_dim", queryColumn);
        require(kdim, "kdim", keyColumn);
        require(vdim, "vdim", valueColumn);
    }

    private static void require(int width, String dimension, String column) {
        if (width < 0) {
            throw new IllegalArgumentException("cannot resolve " + dimension + ": column " + column
                + " has no non-null, non-empty row (give initialWeightsPath, or data with at least one row)");
        }
    }

    void checkHeads(int numHeads) {
        Heads.headDim(embedDim, numHeads, "numHeads", "embed_dim", ", the width of column " + queryColumn);
    }

    /** Loaded weights must have the data's widths (where the data has any). */
    void checkMatches(MultiHeadAttentionWeights w, String source) {
        int e = w.embedDim();
        boolean packed = w.kdim() == e && w.vdim() == e;
        match(source, "embed_dim", w.embedDim(), "out_proj.weight [" + e + ", " + e + "]", embedDim, queryColumn);
        match(source, "kdim", w.kdim(), packed ? "in_proj_weight [" + 3 * e + ", " + e + "]"
            : "k_proj_weight [" + e + ", " + w.kdim() + "]", kdim, keyColumn);
        match(source, "vdim", w.vdim(), packed ? "in_proj_weight [" + 3 * e + ", " + e + "]"
            : "v_proj_weight [" + e + ", " + w.vdim() + "]", vdim, valueColumn);
    }

    private static void match(String source, String dimension, int weights, String tensor, int data, String column) {
        if (data >= 0 && data != weights) {
            throw new IllegalArgumentException(source + ": " + dimension + " is " + weights + " (" + tensor
                + ") but column " + column + " has " + data + " values per row");
        }
    }
}

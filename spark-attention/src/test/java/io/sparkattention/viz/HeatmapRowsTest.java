package io.sparkattention.viz;

import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Rows as Spark gives them: read from JSON lines, then collected. */
class HeatmapRowsTest {

    private static final SparkSession spark = SparkTestSession.get();

    @Test
    void averagedWeightsWithTokens() {
        Row row = row("{\"id\":1,\"tokens\":[\"the\",\"cat\",\"sat\"],"
            + "\"attn_weights\":[[1.0,0,0],[0.5,0.5,0],[0.2,0.3,0.5]]}");
        AttentionHeatmap heatmap = HeatmapRows.fromRow(row, "attn_weights", "tokens");
        assertEquals(1, heatmap.heads());
        assertEquals(3, heatmap.queryLength());
        assertEquals(3, heatmap.keyLength());
        HeatmapLayout layout = heatmap.layout();
        assertEquals(List.of("the", "cat", "sat"), layout.queryLabels);
        assertEquals(List.of("the", "cat", "sat"), layout.keyLabels);
        assertEquals(1f, layout.panels.get(0).value(0, 0));
        assertEquals(0.3f, layout.panels.get(0).value(2, 1));
    }

    @Test
    void perHeadFloatWeightsWithSeparateQueryTokens() {
        Dataset<Row> df = json("{\"q\":[\"a\",\"b\"],\"k\":[\"x\",\"y\",\"z\"],"
            + "\"w\":[[[0.1,0.2,0.7],[0.3,0.3,0.4]],[[1,0,0],[0,1,0]]]}")
            .selectExpr("q", "k", "cast(w as array<array<array<float>>>) as w");
        AttentionHeatmap heatmap = HeatmapRows.fromRow(df.first(), "w", "k", "q");
        assertEquals(2, heatmap.heads());
        assertEquals(2, heatmap.queryLength());
        assertEquals(3, heatmap.keyLength());
        HeatmapLayout layout = heatmap.layout();
        assertEquals(List.of("a", "b"), layout.queryLabels);
        assertEquals(List.of("x", "y", "z"), layout.keyLabels);
        assertEquals(3, layout.panels.size());
        assertEquals(0.7f, layout.panels.get(0).value(0, 2));
        assertEquals("Average", layout.panels.get(2).title);
    }

    @Test
    void withoutTokensLabelsAreIndicesAndNullsAreMasked() {
        Row row = row("{\"attn_weights\":[[0.5,null],[0.25,0.75]]}");
        HeatmapLayout layout = HeatmapRows.fromRow(row, "attn_weights", null).layout();
        assertEquals(List.of("0", "1"), layout.queryLabels);
        assertTrue(Float.isNaN(layout.panels.get(0).value(0, 1)));
        assertTrue(layout.showMaskedLegend);
    }

    @Test
    void reportsBadColumnsByName() {
        Row row = row("{\"tokens\":[\"a\",\"b\"],\"text\":\"a b\",\"flat\":[0.5,0.5],"
            + "\"ragged\":[[0.5,0.5],[1.0]],\"w\":[[0.5,0.5],[0.5,0.5]],\"nums\":[1,2],\"deep\":[[[[1.0]]]]}");
        assertMessage("no column 'attn' (columns: deep, flat, nums, ragged, text, tokens, w)",
            () -> HeatmapRows.fromRow(row, "attn", null));
        assertMessage("column 'text' has type string, expected array<array<float>> (L×S) or array<array<array<float>>> (H×L×S)",
            () -> HeatmapRows.fromRow(row, "text", null));
        assertMessage("column 'flat' has type array<double>", () -> HeatmapRows.fromRow(row, "flat", null));
        assertMessage("column 'deep' has type array<array<array<array<double>>>>", () -> HeatmapRows.fromRow(row, "deep", null));
        assertMessage("column 'ragged': query 1 has 1 weights, expected S = 2", () -> HeatmapRows.fromRow(row, "ragged", null));
        assertMessage("column 'nums' has type array<bigint>, expected array<string> (tokens)",
            () -> HeatmapRows.fromRow(row, "w", "nums"));
        assertMessage("no column 'toks'", () -> HeatmapRows.fromRow(row, "w", "toks"));
        Row three = row("{\"tokens\":[\"a\",\"b\",\"c\"],\"w\":[[0.5,0.5],[0.5,0.5]]}");
        assertMessage("column 'tokens' has 3 tokens, but 'w' has S (keys) = 2",
            () -> HeatmapRows.fromRow(three, "w", "tokens"));
        // A second row fixes the types that a null-only JSON value would leave as string.
        Row nulls = json("{\"tokens\":null,\"w\":null,\"v\":[[1.0]]}",
            "{\"tokens\":[\"a\"],\"w\":[[1.0]],\"v\":[[1.0]]}").collectAsList().get(0);
        assertMessage("column 'w' is null in this row", () -> HeatmapRows.fromRow(nulls, "w", null));
        assertMessage("column 'tokens' is null in this row", () -> HeatmapRows.fromRow(nulls, "v", "tokens"));
    }

    private static void assertMessage(String expected, org.junit.jupiter.api.function.Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().contains(expected), "message: " + e.getMessage());
    }

    private static Row row(String json) {
        return json(json).first();
    }

    private static Dataset<Row> json(String... lines) {
        return spark.read().json(spark.createDataset(List.of(lines), Encoders.STRING()));
    }
}

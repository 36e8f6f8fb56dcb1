package io.sparkattention.examples.demo;

import io.sparkattention.ml.MultiHeadAttentionModel;
import io.sparkattention.viz.AttentionHeatmap;
import io.sparkattention.viz.HeatmapPage;
import io.sparkattention.viz.HeatmapRows;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.expressions.Window;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.row_number;
import static org.apache.spark.sql.functions.size;
import static org.apache.spark.sql.functions.when;

/**
 * The trained heads drawn over a few short passages: one PNG per passage (a panel per head and
 * their average, tokens on both axes) and one HTML page with the passages' text. The passages are
 * the query passage when the corpus has it, then the first short passage of each book; each title
 * says whether the passage was held out and which book the classifier predicts for it.
 */
final class DemoPictures {

    /** Heatmaps stay legible up to this many tokens per axis. */
    static final int MAX_PICTURE_TOKENS = 28;
    /** The pictured passages with one weights plane per head (H×L×L), the query passage first. */
    static final String PICTURED = "pictured.parquet";

    private DemoPictures() {
    }

    /**
     * Draws up to {@code count} passages.
     *
     * @param passages  book, passage, held_out, text (and tokens, replaced here)
     * @param bookModel the saved pipeline: text → tokens → x → prediction → predicted_book
     * @param attention the classifier's trained attention layer (query column x)
     * @param dir       the output directory; pictures go to {@code dir/pictures}, the page to
     *                  {@code dir/attention.html}, the drawn rows to {@code dir/pictured.parquet}
     * @return the passages drawn
     */
    static List<Row> draw(Dataset<Row> passages, PipelineModel bookModel, MultiHeadAttentionModel attention,
                          int count, Path dir) throws IOException {
        Dataset<Row> shortOnes = passages.where(size(col("tokens")).between(Passages.MIN_WORDS, MAX_PICTURE_TOKENS));
        Dataset<Row> firstPerBook = shortOnes
            .withColumn("rank", row_number().over(Window.partitionBy("book").orderBy(
                when(col("text").startsWith(NearestPassages.QUERY_PASSAGE), 0).otherwise(1), col("passage"))))
            .where(col("rank").equalTo(1)).drop("rank")
            .orderBy(when(col("text").startsWith(NearestPassages.QUERY_PASSAGE), 0).otherwise(1), col("book"));
        List<Row> chosen = firstPerBook.limit(count).collectAsList();
        if (chosen.isEmpty()) {
            return chosen;
        }
        // The same trained layer, with one weights slice per head instead of their average.
        MultiHeadAttentionModel perHead = attention.copy(new ParamMap()).setAverageWeights(false)
            .setOutputCol("contextual").setWeightsCol("attn_weights");
        Dataset<Row> picked = passages.sparkSession().createDataFrame(chosen, passages.schema()).drop("tokens");
        Dataset<Row> drawn = perHead.transform(bookModel.transform(picked))
            .select("book", "passage", "held_out", "text", "tokens", "predicted_book", "attn_weights");
        List<Row> rows = drawn.orderBy("book", "passage").collectAsList();
        // The same rows for spark-attention heatmap, the query passage first: its row 0 is the first picture.
        drawn.orderBy(when(col("text").startsWith(NearestPassages.QUERY_PASSAGE), 0).otherwise(1), col("book"))
            .coalesce(1).write().parquet(dir.resolve(PICTURED).toString());

        Path pictures = dir.resolve("pictures");
        Files.createDirectories(pictures);
        HeatmapPage page = HeatmapPage.titled("spark-attention demo: the " + attention.getNumHeads()
            + " trained heads of the book classifier over Jane Austen");
        for (Row row : rows) {
            String book = row.getString(row.fieldIndex("book"));
            int passage = row.getInt(row.fieldIndex("passage"));
            String title = AttentionDemo.pretty(book) + ", passage " + passage
                + (row.getBoolean(row.fieldIndex("held_out")) ? " (held out)" : " (training)")
                + "; predicted: " + AttentionDemo.pretty(row.getString(row.fieldIndex("predicted_book")));
            AttentionHeatmap heatmap = HeatmapRows.fromRow(row, "attn_weights", "tokens").title(title);
            heatmap.writePng(pictures.resolve(book + "-" + passage + ".png"));
            page = page.add(title, row.getString(row.fieldIndex("text")), heatmap);
        }
        page.write(dir.resolve("attention.html"));
        return rows;
    }
}

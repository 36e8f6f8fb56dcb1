package io.sparkattention.examples.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sparkattention.io.MultiHeadAttentionStateDict;
import io.sparkattention.ml.MultiHeadAttention;
import io.sparkattention.ml.MultiHeadAttentionModel;
import io.sparkattention.ml.SinusoidalPositionalEncoding;
import io.sparkattention.viz.AttentionHeatmap;
import io.sparkattention.viz.HeatmapPage;
import io.sparkattention.viz.HeatmapRows;
import org.apache.spark.ml.Pipeline;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.PipelineStage;
import org.apache.spark.ml.Transformer;
import org.apache.spark.ml.feature.RegexTokenizer;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.storage.StorageLevel;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.row_number;
import static org.apache.spark.sql.functions.size;
import static org.apache.spark.sql.functions.when;

/**
 * The main job: a corpus of books → passages → tokens → Word2Vec token embeddings → sinusoidal
 * positions → multi-head self-attention → contextual token vectors and an attention-pooled vector
 * per passage, written as Parquet; then attention pictures for a few passages and the passages
 * nearest to one of them.
 *
 * <p>Writes into {@code settings.output}: {@code passages.parquet/}, {@code model/} (the fitted
 * Spark ML PipelineModel), {@code similarity_heads.safetensors} (the attention weights, PyTorch
 * names), {@code pictures/*.png}, {@code attention.html} and {@code summary.json}.
 */
public final class AttentionDemo {

    /** What the demo runs on and where it writes. */
    public static final class Settings {
        /** Directory of plain-text books, one file per book. */
        public String corpus;
        /** Output directory (must be writable; the caller handles replacing it). */
        public Path output;
        /** Where the output will be once the caller has moved it there (messages name it); null: {@code output}. */
        public Path publishedAs;
        /** Attention heads. */
        public int heads = 4;
        /** Embedding dimension (Word2Vec vector size); heads must divide it. */
        public int dim = 64;
        /** Passages drawn with attention pictures. */
        public int pictures = 3;
        /** How many nearest passages to print. */
        public int nearest = 5;
        /** Seed of Word2Vec. */
        public long seed = 42;
    }

    /** Heatmaps stay legible up to this many tokens per axis. */
    static final int MAX_PICTURE_TOKENS = 28;
    /** The passage the nearest-passages query starts from, when the corpus has it. */
    static final String QUERY_PASSAGE = "It is a truth universally acknowledged";

    private final SparkSession spark;
    private final PrintStream out;

    public AttentionDemo(SparkSession spark, PrintStream out) {
        this.spark = spark;
        this.out = out;
    }

    /** Runs the demo and returns its summary (also written as summary.json). */
    public ObjectNode run(Settings s) throws IOException {
        Progress progress = new Progress(out, 7);
        Path shown = s.publishedAs == null ? s.output : s.publishedAs;
        Files.createDirectories(s.output);

        // (1) passages
        Dataset<Row> passages = Passages.read(spark, s.corpus).persist(StorageLevel.MEMORY_AND_DISK());
        long passageCount = passages.count();
        if (passageCount == 0) {
            throw new IllegalArgumentException("corpus " + s.corpus + " has no passage of at least "
                + Passages.MIN_WORDS + " words");
        }
        long books = passages.select("book").distinct().count();
        progress.phase("passages", Progress.count(passageCount) + " passages from " + books + " books");

        // (2) tokens
        Dataset<Row> tokenized = new RegexTokenizer().setInputCol("text").setOutputCol("tokens")
            .setPattern("[^\\p{L}\\p{N}']+").setToLowercase(true)
            .transform(passages).where(size(col("tokens")).gt(0)).persist(StorageLevel.MEMORY_AND_DISK());
        long tokenCount = tokenized.select(size(col("tokens")).cast("long").as("n")).groupBy().sum("n").first().getLong(0);
        progress.phase("tokenize", Progress.count(tokenCount) + " tokens");

        // (3) fit: Word2Vec embeddings and the attention pipeline
        Path weightsFile = s.output.resolve("similarity_heads.safetensors");
        MultiHeadAttentionStateDict.write(weightsFile, SimilarityHeads.of(s.dim, s.heads), "",
            Map.of("about", "spark-attention demo: identity projections (similarity heads)"));
        Pipeline pipeline = new Pipeline().setStages(new PipelineStage[] {
            new TokenEmbedding().setInputCol("tokens").setOutputCol("embeddings").setVectorSize(s.dim).setSeed(s.seed)
                .setNormalize(true),
            new SinusoidalPositionalEncoding().setInputCol("embeddings").setOutputCol("x").setAddToInput(true),
            new MultiHeadAttention().setQueryCol("x").setNumHeads(s.heads).setInitialWeightsPath(weightsFile.toString())
                .setOutputCol("contextual").setWeightsCol("attn_weights"),
            new AttentionPooling().setInputCol("contextual").setWeightsCol("attn_weights").setOutputCol("pooled")});
        PipelineModel model = pipeline.fit(tokenized);
        model.write().overwrite().save(s.output.resolve("model").toString());
        TokenEmbeddingModel embedding = (TokenEmbeddingModel) model.stages()[0];
        progress.phase("fit", "Word2Vec: " + Progress.count(embedding.vocabularySize()) + " words × " + s.dim
            + "; attention: " + s.heads + " heads of " + s.dim / s.heads + "; model saved");

        // (4) attention over every passage, written as Parquet
        long attentionStart = System.nanoTime();
        Dataset<Row> result = model.transform(tokenized)
            .select("book", "passage", "text", "tokens", "contextual", "pooled");
        String parquet = s.output.resolve("passages.parquet").toString();
        result.write().mode("overwrite").parquet(parquet);
        double attentionSeconds = (System.nanoTime() - attentionStart) / 1e9;
        progress.phase("attend", Progress.count(passageCount) + " passages → " + shown.resolve("passages.parquet")
            + String.format(Locale.ROOT,
            " (%,.0f tokens/s)", tokenCount / attentionSeconds));

        // (5) pictures: per-head weights for a few short passages
        List<Row> pictured = drawPictures(model, tokenized, s);
        progress.phase("pictures", pictured.size() + " passages → " + shown.resolve("pictures") + ", "
            + shown.resolve("attention.html"));

        // (6) nearest passages by the pooled vectors
        List<String> nearest = nearest(spark.read().parquet(parquet), s.nearest);
        progress.phase("nearest", "top " + s.nearest + " by cosine of the attention-pooled vectors");
        for (String line : nearest) {
            out.println("    " + line);
        }

        // (7) summary
        ObjectNode summary = new ObjectMapper().createObjectNode();
        summary.put("passages", passageCount);
        summary.put("books", books);
        summary.put("tokens", tokenCount);
        summary.put("attention_seconds", round(attentionSeconds));
        summary.put("tokens_per_second", Math.round(tokenCount / attentionSeconds));
        summary.put("total_seconds", round(progress.elapsedSeconds()));
        summary.put("heads", s.heads);
        summary.put("dim", s.dim);
        summary.put("output", shown.resolve("passages.parquet").toString());
        summary.put("model", shown.resolve("model").toString());
        summary.put("pictures", shown.resolve("pictures").toString());
        summary.put("html", shown.resolve("attention.html").toString());
        Files.writeString(s.output.resolve("summary.json"),
            new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(summary), StandardCharsets.UTF_8);
        progress.phase("summary", shown.resolve("summary.json").toString());
        out.printf(Locale.ROOT, "%nspark-attention demo: %,d passages, %,d tokens, %,.0f tokens/s through attention, "
                + "%.1f s in all%n  output:   %s%n  pictures: %s%n  page:     %s%n", passageCount, tokenCount,
            tokenCount / attentionSeconds, progress.elapsedSeconds(), shown.resolve("passages.parquet"),
            shown.resolve("pictures"), shown.resolve("attention.html"));
        passages.unpersist();
        tokenized.unpersist();
        return summary;
    }

    /** Per-head pictures (PNG) and one HTML page for the first short passages of each book. */
    private List<Row> drawPictures(PipelineModel model, Dataset<Row> tokenized, Settings s) throws IOException {
        Dataset<Row> shortOnes = tokenized.where(size(col("tokens")).between(Passages.MIN_WORDS, MAX_PICTURE_TOKENS));
        // The query passage when the corpus has it, then the first short passage of each book.
        Dataset<Row> firstPerBook = shortOnes
            .withColumn("rank", row_number().over(Window.partitionBy("book").orderBy(
                when(col("text").startsWith(QUERY_PASSAGE), 0).otherwise(1), col("passage"))))
            .where(col("rank").equalTo(1)).drop("rank")
            .orderBy(when(col("text").startsWith(QUERY_PASSAGE), 0).otherwise(1), col("book"));
        List<Row> chosen = firstPerBook.limit(s.pictures).collectAsList();
        if (chosen.isEmpty()) {
            return chosen;
        }
        // The same fitted stages, with one weights slice per head instead of the average.
        Transformer[] stages = model.stages().clone();
        MultiHeadAttentionModel attention = ((MultiHeadAttentionModel) stages[2]).copy(new org.apache.spark.ml.param.ParamMap());
        attention.setAverageWeights(false);
        Dataset<Row> picked = spark.createDataFrame(chosen, tokenized.schema());
        Dataset<Row> x = stages[1].transform(stages[0].transform(picked));
        List<Row> rows = attention.transform(x).orderBy("book", "passage").collectAsList();

        Path dir = s.output.resolve("pictures");
        Files.createDirectories(dir);
        HeatmapPage page = HeatmapPage.titled("spark-attention demo: " + s.heads + " similarity heads over Jane Austen");
        for (Row row : rows) {
            String name = row.getString(row.fieldIndex("book")) + "-" + row.getInt(row.fieldIndex("passage"));
            String title = pretty(row.getString(row.fieldIndex("book"))) + ", passage " + row.getInt(row.fieldIndex("passage"));
            AttentionHeatmap heatmap = HeatmapRows.fromRow(row, "attn_weights", "tokens").title(title);
            heatmap.writePng(dir.resolve(name + ".png"));
            page = page.add(title, row.getString(row.fieldIndex("text")), heatmap);
        }
        page.write(s.output.resolve("attention.html"));
        return rows;
    }

    /**
     * The passages closest to the query passage by the cosine of their pooled vectors, centred on
     * the corpus mean first: every passage shares the positional part of its vectors and the
     * attention mass on common words, a component that would otherwise make all cosines near 1.
     */
    private static List<String> nearest(Dataset<Row> result, int k) {
        List<Row> rows = result.select("book", "passage", "text", "pooled").where(col("pooled").isNotNull())
            .collectAsList();
        List<float[]> vectors = new ArrayList<>(rows.size());
        double[] mean = null;
        for (Row r : rows) {
            float[] v = floats(r.getList(3));
            vectors.add(v);
            if (mean == null) {
                mean = new double[v.length];
            }
            for (int i = 0; i < v.length; i++) {
                mean[i] += v[i] / (double) rows.size();
            }
        }
        for (float[] v : vectors) {
            for (int i = 0; i < v.length; i++) {
                v[i] -= (float) mean[i];
            }
        }
        int queryIndex = 0;
        for (int i = 0; i < rows.size(); i++) {
            if (rows.get(i).getString(2).startsWith(QUERY_PASSAGE)) {
                queryIndex = i;
                break;
            }
        }
        Row query = rows.get(queryIndex);
        float[] q = vectors.get(queryIndex);
        final int skip = queryIndex;
        List<String> lines = new ArrayList<>();
        lines.add("query: " + label(query));
        java.util.stream.IntStream.range(0, rows.size())
            .filter(i -> i != skip)
            .mapToObj(i -> Map.entry(cosine(q, vectors.get(i)), rows.get(i)))
            .sorted(Map.Entry.<Double, Row>comparingByKey(Comparator.reverseOrder()))
            .limit(k)
            .forEach(e -> lines.add(String.format(Locale.ROOT, "%.3f  %s", e.getKey(), label(e.getValue()))));
        return lines;
    }

    private static String label(Row r) {
        String text = r.getString(2);
        return pretty(r.getString(0)) + " #" + r.getInt(1) + ": \"" + (text.length() > 90 ? text.substring(0, 87) + "..." : text) + "\"";
    }

    private static float[] floats(List<Object> list) {
        float[] f = new float[list.size()];
        for (int i = 0; i < f.length; i++) {
            f[i] = ((Number) list.get(i)).floatValue();
        }
        return f;
    }

    private static double cosine(float[] a, float[] b) {
        double dot = 0, na = 0, nb = 0;
        for (int i = 0; i < a.length; i++) {
            dot += (double) a[i] * b[i];
            na += (double) a[i] * a[i];
            nb += (double) b[i] * b[i];
        }
        return na == 0 || nb == 0 ? 0 : dot / Math.sqrt(na * nb);
    }

    /** "pride_and_prejudice" → "Pride and prejudice". */
    static String pretty(String book) {
        String s = book.replace('_', ' ');
        return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }

    private static double round(double x) {
        return Math.round(x * 100.0) / 100.0;
    }
}

package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.OutputKind;
import com.fasterxml.jackson.databind.JsonNode;
import io.sparkattention.ml.classification.AttentionClassificationModel;
import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code spark-attention demo} end to end on a two-book corpus, and its bad invocations. */
class DemoCommandTest {

    @TempDir
    static Path corpus;

    @BeforeAll
    static void writeCorpus() throws IOException {
        String[] sentences = {
            "It is a truth universally acknowledged that a single man in possession of a good fortune must be in want of a wife.",
            "However little known the feelings or views of such a man may be on his first entering a neighbourhood.",
            "This truth is so well fixed in the minds of the surrounding families that he is considered their property.",
            "Emma Woodhouse handsome clever and rich with a comfortable home and happy disposition seemed to unite blessings.",
            "She was the youngest of the two daughters of a most affectionate indulgent father and had been mistress of his house."};
        Files.writeString(corpus.resolve("first_book.txt"),
            "FIRST BOOK\n\nChapter 1\n\n" + String.join("\n\n", sentences[0], sentences[1], sentences[2], sentences[0]));
        Files.writeString(corpus.resolve("second_book.txt"),
            "SECOND BOOK\n\nCHAPTER I\n\n" + String.join("\n\n", sentences[3], sentences[4], sentences[3]));
    }

    @Test
    @DisplayName("the demo trains the classifier, embeds passages with all-MiniLM-L6-v2, scores seven models on held-out "
        + "blocks, and writes Parquet, the saved model, its PyTorch export, pictures of the trained heads and of "
        + "MiniLM's, an HTML page and a summary")
    void endToEnd(@TempDir Path out) throws IOException {
        Path output = out.resolve("demo");
        CommandLineRun run = CommandLineRun.of(demo(output, "--pictures", "2"));
        assertEquals(0, run.exitCode, run.err);
        assertTrue(run.out.contains("[16/16] summary"), run.out);
        assertTrue(run.out.contains("per book, blocks of 1 consecutive passages; every 2nd block held out"), run.out);
        assertTrue(run.out.contains("query: First book #0: \"It is a truth universally acknowledged"), run.out);
        for (String model : List.of("majority class", "logistic regression on TF-IDF",
            "logistic regression on the mean word + position vector", "attention classifier",
            "logistic regression on all-MiniLM-L6-v2 sentence embeddings",
            "attention classifier on all-MiniLM-L6-v2 token states", "all-MiniLM-L6-v2 fine-tuned")) {
            assertTrue(run.outLines().stream().anyMatch(l -> l.trim().startsWith(model) && l.matches(".* [01]\\.\\d{3}")),
                "one accuracy line for " + model + ":\n" + run.out);
        }

        JsonNode summary = Cli.JSON.readTree(output.resolve("summary.json").toFile());
        assertEquals(7, summary.get("passages").asInt());
        assertEquals(2, summary.get("books").asInt());
        // Blocks of one passage, every 2nd held out: passages 1 and 3 of the first book, 1 of the second.
        assertEquals(4, summary.get("split").get("training_passages").asInt());
        assertEquals(3, summary.get("split").get("held_out_passages").asInt());
        JsonNode accuracy = summary.get("accuracy");
        assertEquals(List.of("majority", "tfidf_logistic_regression", "mean_embedding_logistic_regression",
            "attention_classifier", "minilm_logistic_regression", "attention_classifier_minilm", "minilm_fine_tuned"),
            fieldNames(accuracy));
        accuracy.forEach(a -> assertTrue(a.isNumber() && a.asDouble() >= 0 && a.asDouble() <= 1, accuracy.toString()));
        // Two training passages per book: the majority is the first book (the smaller label on a tie),
        // right on 2 of the 3 held-out passages.
        assertEquals(2.0 / 3, accuracy.get("majority").asDouble(), 1e-12);
        assertEquals(3, summary.get("training").get("max_iter").asInt());
        // MiniLM embeds every held-out passage and every 4th training passage: passage 0 of each book.
        JsonNode encoder = summary.get("encoder");
        assertEquals("all-minilm-l6-v2", encoder.get("model").asText());
        assertEquals(5, encoder.get("texts").asInt());
        assertEquals(3, encoder.get("held_out_passages").asInt());
        assertEquals(2, encoder.get("training_passages").asInt());
        assertTrue(encoder.get("tokens").asLong() > 5 * 12, encoder.toString());
        assertEquals(encoder.get("tokens").asDouble() / encoder.get("seconds").asDouble(),
            encoder.get("tokens_per_second").asDouble(), 0.02 * encoder.get("tokens_per_second").asDouble() + 1,
            encoder.toString());
        assertEquals(output.resolve("passages.parquet").toString(), summary.get("output").asText());

        assertEquals(List.of("book", "passage", "held_out", "text", "tokens", "predicted_book", "contextual",
            "attn_weights", "pooled"), List.of(SparkTestSession.get().read()
            .parquet(output.resolve("passages.parquet").toString()).columns()), "the heatmap command reads attn_weights");
        assertTrue(Files.isDirectory(output.resolve("model").resolve("stages")));
        PipelineModel model = PipelineModel.load(output.resolve("model").toString());
        StructType text = new StructType().add("text", DataTypes.StringType);
        List<Row> predicted = model.transform(SparkTestSession.get().createDataFrame(
            List.of(RowFactory.create("Emma Woodhouse handsome clever and rich")), text)).collectAsList();
        assertTrue(List.of("first_book", "second_book").contains(predicted.get(0).getAs("predicted_book")),
            "the saved model reads text and names a book: " + predicted);
        AttentionClassificationModel exported = AttentionClassificationModel.fromSafeTensors(
            output.resolve("attention_classifier.safetensors").toString(), 2, false, true, "mean");
        assertEquals(2, exported.numClasses());
        assertEquals(16, exported.numFeatures());

        List<Path> pictures;
        try (Stream<Path> files = Files.list(output.resolve("pictures"))) {
            pictures = files.sorted().collect(Collectors.toList());
        }
        // The two passages' trained heads, then MiniLM's own heads over the query passage.
        assertEquals(3, pictures.size(), pictures.toString());
        assertTrue(pictures.stream().anyMatch(p -> p.getFileName().toString().equals("minilm-layer0-first_book-0.png")),
            pictures.toString());
        BufferedImage image = ImageIO.read(pictures.get(0).toFile());
        assertNotNull(image);
        String html = Files.readString(output.resolve("attention.html"));
        assertTrue(html.contains("<svg") && html.contains("universally"), "the page shows the passage and its heatmap");
        assertTrue(html.contains("trained heads"), "the page says the heads are the trained ones");
        try (Stream<Path> siblings = Files.list(out)) {
            assertEquals(List.of(output), siblings.collect(Collectors.toList()), "no staging directory left behind");
        }

        // The README's next steps on this output: predict with the saved pipeline, redraw the first picture.
        Path texts = out.resolve("texts.jsonl");
        Files.writeString(texts, "{\"text\":\"Emma Woodhouse handsome clever and rich\"}\n");
        Path books = out.resolve("books.jsonl");
        CommandLineRun predict = CommandLineRun.of("predict", "--model", output.resolve("model").toString(), "--input",
            texts.toString(), "--output", books.toString(), "--master", Cli.MASTER);
        assertEquals(0, predict.exitCode, predict.err);
        JsonNode book = Cli.readJsonLines(books).get(0);
        assertEquals(predicted.get(0).getAs("predicted_book"), book.get("predicted_book").asText());
        assertEquals(List.of("text", "rawPrediction", "probability", "prediction", "predicted_book"), fieldNames(book));
        CommandLineRun heatmap = CommandLineRun.of("heatmap", "--input", output.resolve("pictured.parquet").toString(),
            "--row", "0", "--output", out.resolve("row0.png").toString(), "--master", Cli.MASTER);
        assertEquals(0, heatmap.exitCode, heatmap.err);
        assertTrue(heatmap.out.contains("2 heads + average"), "per-head panels: " + heatmap.out);
        Files.delete(texts);
        Files.delete(books);
        Files.delete(out.resolve("row0.png"));

        assertTrue(Files.isRegularFile(output.resolve(OutputKind.MARKER)), "the output is marked as the tool's");

        // A rerun replaces the earlier demo output with --overwrite, and only with it.
        assertBad(List.of("demo", "--corpus", corpus.toString(), "--output", output.toString(), "--pictures", "0"),
            "--output " + output + " already exists (--overwrite replaces an earlier output of spark-attention)");
        assertEquals(0, CommandLineRun.of(demo(output, "--pictures", "0", "--overwrite")).exitCode);
        assertFalse(Files.exists(output.resolve("pictures")), "nothing of the earlier output is left");
    }

    @Test
    @DisplayName("a split that holds out no passage fails naming the split and its options, and leaves no output")
    void emptySplit(@TempDir Path out) {
        Path output = out.resolve("o");
        CommandLineRun run = CommandLineRun.of("demo", "--corpus", corpus.toString(), "--output", output.toString(),
            "--master", Cli.MASTER, "--dim", "16", "--heads", "2", "--max-iter", "1");
        assertEquals(2, run.exitCode, run.err);
        assertTrue(run.errorLines().get(0).contains("leaves 7 training and 0 held-out passages")
            && run.errorLines().get(0).contains("--block-passages"), run.err);
        assertFalse(Files.exists(output));
    }

    @Test
    @DisplayName("bad invocations exit 2 with one line naming the problem, and write nothing")
    void badInvocations(@TempDir Path out) throws IOException {
        assertBad(List.of("demo", "--no-such-flag"), "Unknown option: '--no-such-flag'");
        assertBad(List.of("demo", "--corpus", out.resolve("missing").toString(), "--output", out.resolve("o").toString()),
            "--corpus " + out.resolve("missing") + ": no such directory");
        Path file = Files.writeString(out.resolve("a-file"), "x");
        assertBad(List.of("demo", "--corpus", corpus.toString(), "--output", file.resolve("o").toString()),
            file.toString());
        Path notDemo = Files.createDirectories(out.resolve("not-a-demo"));
        Files.writeString(notDemo.resolve("notes.txt"), "mine");
        assertBad(List.of("demo", "--corpus", corpus.toString(), "--output", notDemo.toString()),
            "--output " + notDemo + " already exists");
        assertBad(List.of("demo", "--corpus", corpus.toString(), "--output", notDemo.toString(), "--overwrite"),
            "--output " + notDemo + " exists and is not replaced: spark-attention did not write it");
        assertEquals("mine", Files.readString(notDemo.resolve("notes.txt")));
        assertBad(List.of("demo", "--corpus", corpus.toString(), "--output", corpus.resolve("out").toString()),
            "lies inside the input (--corpus " + corpus);
        assertBad(List.of("demo", "--corpus", corpus.toString(), "--output", out.resolve("missing/o").toString()),
            "directory " + out.resolve("missing") + " does not exist (create it first)");
        assertBad(List.of("demo", "--corpus", corpus.toString(), "--heads", "3", "--output", out.resolve("o").toString()),
            "--heads (3) must divide --dim (64)");
        assertBad(List.of("demo", "--corpus", corpus.toString(), "--max-iter", "0", "--output", out.resolve("o").toString()),
            "--max-iter must be >= 1, got 0");
        assertBad(List.of("demo", "--corpus", corpus.toString(), "--step-size", "-1", "--output", out.resolve("o").toString()),
            "--step-size must be a positive number, got -1.0");
        assertBad(List.of("demo", "--corpus", corpus.toString(), "--mini-batch-fraction", "1.5", "--output",
            out.resolve("o").toString()), "--mini-batch-fraction must be in (0, 1], got 1.5");
        assertBad(List.of("demo", "--corpus", corpus.toString(), "--block-passages", "0", "--output",
            out.resolve("o").toString()), "--block-passages must be >= 1, got 0");
        assertBad(List.of("demo", "--corpus", corpus.toString(), "--holdout-every", "1", "--output",
            out.resolve("o").toString()), "--holdout-every must be >= 2, got 1");
        assertFalse(Files.exists(out.resolve("o")));
    }

    /** A small, fast demo on the two-book corpus: blocks of one passage, every 2nd held out, three steps. */
    private static String[] demo(Path output, String... more) {
        List<String> args = new ArrayList<>(List.of("demo", "--corpus", corpus.toString(), "--output", output.toString(),
            "--master", Cli.MASTER, "--dim", "16", "--heads", "2", "--block-passages", "1", "--holdout-every", "2",
            "--max-iter", "3", "--mini-batch-fraction", "1"));
        args.addAll(List.of(more));
        return args.toArray(new String[0]);
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static void assertBad(List<String> args, String expected) {
        CommandLineRun run = CommandLineRun.of(args.toArray(new String[0]));
        assertEquals(2, run.exitCode, run.err);
        List<String> lines = run.errorLines();
        assertEquals(1, lines.size(), run.err);
        assertTrue(lines.get(0).startsWith("spark-attention demo: ") && lines.get(0).contains(expected), lines.get(0));
    }
}

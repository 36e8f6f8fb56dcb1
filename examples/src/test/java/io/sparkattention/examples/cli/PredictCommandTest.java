package io.sparkattention.examples.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.sparkattention.examples.demo.TokenEmbedding;
import io.sparkattention.ml.classification.AttentionClassificationModel;
import io.sparkattention.ml.classification.AttentionClassifier;
import io.sparkattention.ml.feature.SinusoidalPositionalEncoding;
import org.apache.spark.ml.Pipeline;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.PipelineStage;
import org.apache.spark.ml.feature.IndexToString;
import org.apache.spark.ml.feature.RegexTokenizer;
import org.apache.spark.ml.feature.StringIndexer;
import org.apache.spark.ml.feature.StringIndexerModel;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code spark-attention predict}: what {@code train} saved, or a pipeline from raw text, applied
 * from the command line; every input column kept, the model's outputs added, and the bad-input
 * contract (exit 2, one line, nothing left behind).
 */
class PredictCommandTest {

    @TempDir
    Path tmp;

    private final TrainFixture fixture = TrainFixture.open("cls_basic");

    /** Runs {@code predict} (it must succeed) and returns its output. */
    private static Path predicted(Path model, Path input, Path out) {
        CommandLineRun run = CommandLineRun.of("predict", "--model", model.toString(), "--input", input.toString(),
            "--output", out.toString(), "--master", Cli.MASTER);
        assertEquals(0, run.exitCode, run.err);
        return out;
    }

    /** Trains a model with {@code train} on the fixture's rows; returns the model directory. */
    private Path trained(Path input) throws IOException {
        Path initial = fixture.writeInitial(tmp.resolve("initial.safetensors"));
        Path model = tmp.resolve("model");
        CommandLineRun run = CommandLineRun.of(fixture.args(input, initial, model, null).toArray(new String[0]));
        assertEquals(0, run.exitCode, run.err);
        return model;
    }

    @Test
    @DisplayName("a model train saved: every input column kept, prediction/probability/rawPrediction as the Java API gives them")
    void classifier() throws IOException {
        Path input = fixture.writeInput(tmp.resolve("in.jsonl"));
        Path model = trained(input);
        Path out = tmp.resolve("pred.jsonl");
        List<JsonNode> lines = Cli.readJsonLines(predicted(model, input, out));
        assertEquals(fixture.rows, lines.size());

        SparkSession spark = SparkSession.active();
        AttentionClassificationModel loaded = AttentionClassificationModel.load(model.toUri().toString());
        List<Row> expected = loaded.transform(spark.read().json(input.toString()))
            .select("rawPrediction", "probability", "prediction").collectAsList();
        for (int i = 0; i < lines.size(); i++) {
            JsonNode line = lines.get(i);
            for (String column : List.of("query", "label", "rawPrediction", "probability", "prediction")) {
                assertTrue(line.has(column), column + " in line " + (i + 1));
            }
            assertTrue(line.get("rawPrediction").isArray(), "rawPrediction as an array of numbers");
            assertArrayEquals(((Vector) expected.get(i).get(0)).toArray(), doubles(line.get("rawPrediction")), 1e-9);
            assertArrayEquals(((Vector) expected.get(i).get(1)).toArray(), doubles(line.get("probability")), 1e-9);
            assertEquals(expected.get(i).getDouble(2), line.get("prediction").asDouble());
        }

        Path parquet = tmp.resolve("pred.parquet");
        Dataset<Row> written = spark.read().parquet(predicted(model, input, parquet).toString());
        assertEquals("vector", written.schema().apply("probability").dataType().typeName());
        assertEquals(fixture.rows, written.count());
    }

    private static final String[] TEXTS = {"the cat sat on the mat", "a dog ran in the park", "the cat ate the fish",
        "a dog barked at the mailman", "cats like warm milk", "dogs like long walks"};

    /** The demo's kind of pipeline, fitted on {@link #TEXTS}: text → tokens → embeddings → x → classifier → names. */
    private static PipelineModel textPipeline() {
        SparkSession spark = SparkSession.active();
        String[] texts = TEXTS;
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < texts.length; i++) {
            rows.add(RowFactory.create(texts[i], i % 2 == 0 ? "Cats" : "Dogs"));
        }
        Dataset<Row> passages = spark.createDataFrame(rows, new StructType().add("text", DataTypes.StringType)
            .add("book", DataTypes.StringType));
        StringIndexerModel labels = new StringIndexer().setInputCol("book").setOutputCol("label").fit(passages);
        return new Pipeline().setStages(new PipelineStage[] {
            new RegexTokenizer().setInputCol("text").setOutputCol("tokens").setPattern("\\W+"),
            new TokenEmbedding().setInputCol("tokens").setOutputCol("embeddings").setVectorSize(8).setMinCount(1)
                .setSeed(1),
            new SinusoidalPositionalEncoding().setInputCol("embeddings").setOutputCol("x").setAddToInput(true),
            new AttentionClassifier().setFeaturesCol("x").setLabelCol("label").setNumHeads(2).setMaxIter(3),
            new IndexToString().setInputCol("prediction").setOutputCol("predicted_book")
                .setLabels(labels.labelsArray()[0])}).fit(labels.transform(passages));
    }

    @Test
    @DisplayName("an empty text through a saved pipeline: error names the text column and its line, skip leaves the "
        + "row out, keep gives it null predictions; a closing line on stdout")
    void emptyTextFollowsHandleInvalid() throws IOException {
        Path model = tmp.resolve("pipeline");
        textPipeline().write().save(model.toUri().toString());
        Path input = tmp.resolve("passages.jsonl");
        Cli.writeJsonLines(input, List.of("{\"id\": 0, \"text\": \"the cat sat\"}", "{\"id\": 1, \"text\": \"a dog\"}",
            "{\"id\": 2, \"text\": \"\"}", "{\"id\": 3, \"text\": \"cats\"}"));
        Map<String, String> before = Trees.snapshot(tmp);
        assertRefused(before, predict(model, input), "--input " + input + ": line 3:", "column text",
            "--handle-invalid");
        assertFalse(Cli.run(predict(model, input)).stderr.contains("column x"), "no internal column named");

        Path skipped = tmp.resolve("skip.jsonl");
        CommandLineRun run = CommandLineRun.of("predict", "--model", model.toString(), "--input", input.toString(),
            "--output", skipped.toString(), "--master", Cli.MASTER, "--handle-invalid", "skip");
        assertEquals(0, run.exitCode, run.err);
        assertEquals(List.of(0, 1, 3), ids(Cli.readJsonLines(skipped)));
        assertTrue(run.out.contains("predict: 3 rows written to " + skipped), run.out);

        Path kept = tmp.resolve("keep.jsonl");
        run = CommandLineRun.of("predict", "--model", model.toString(), "--input", input.toString(),
            "--output", kept.toString(), "--master", Cli.MASTER, "--handle-invalid", "keep");
        assertEquals(0, run.exitCode, run.err);
        List<JsonNode> lines = Cli.readJsonLines(kept);
        assertEquals(List.of(0, 1, 2, 3), ids(lines));
        assertFalse(lines.get(2).hasNonNull("prediction"), lines.get(2).toString());
        assertFalse(lines.get(2).hasNonNull("predicted_book"), lines.get(2).toString());
        List<JsonNode> skippedLines = Cli.readJsonLines(skipped);
        assertEquals(skippedLines.get(2).get("prediction"), lines.get(3).get("prediction"), "other rows as with skip");
        assertEquals(skippedLines.get(0).get("probability"), lines.get(0).get("probability"));

        run = CommandLineRun.of("describe", model.toString(), "--master", Cli.MASTER);
        assertEquals(0, run.exitCode, run.err);
        JsonNode stages = Cli.JSON.readTree(run.out).get("stages");
        assertEquals(5, stages.size());
        assertEquals("RegexTokenizer", stages.get(0).get("class").asText());
        assertEquals("text", stages.get(0).get("params").get("inputCol").asText());
        assertEquals("AttentionClassificationModel", stages.get(3).get("class").asText());
        assertEquals(2, stages.get(3).get("classes").asInt());
        assertEquals(8, stages.get(3).get("features").asInt());
        assertEquals(2, stages.get(3).get("params").get("numHeads").asInt());
    }

    private static List<Integer> ids(List<JsonNode> lines) {
        List<Integer> ids = new ArrayList<>();
        lines.forEach(l -> ids.add(l.get("id").asInt()));
        return ids;
    }

    @Test
    @DisplayName("a PipelineModel from text (tokens → embedding → positions → classifier → names): predicted_book, no intermediate columns")
    void pipelineFromText() throws IOException {
        SparkSession spark = SparkSession.active();
        String[] texts = TEXTS;
        PipelineModel pipeline = textPipeline();
        Path model = tmp.resolve("pipeline");
        pipeline.write().save(model.toUri().toString());

        Path input = tmp.resolve("passages.jsonl");
        List<Object> records = new ArrayList<>();
        for (int i = 0; i < texts.length; i++) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("id", i);
            r.put("text", texts[i]);
            records.add(r);
        }
        Cli.writeJsonLines(input, records);
        Path out = tmp.resolve("books.jsonl");
        List<JsonNode> lines = Cli.readJsonLines(predicted(model, input, out));
        assertEquals(texts.length, lines.size());
        List<String> expected = new ArrayList<>();
        pipeline.transform(spark.read().json(input.toString())).select("predicted_book").collectAsList()
            .forEach(r -> expected.add(r.getString(0)));
        for (int i = 0; i < lines.size(); i++) {
            List<String> names = new ArrayList<>();
            lines.get(i).fieldNames().forEachRemaining(names::add);
            assertEquals(List.of("id", "text", "rawPrediction", "probability", "prediction", "predicted_book"), names);
            assertEquals(expected.get(i), lines.get(i).get("predicted_book").asText());
        }
    }

    /** Exit 2, one line on stderr holding every fragment, and the directory as it was. */
    private void assertRefused(Map<String, String> before, String[] args, String... fragments) {
        Cli.Result result = Cli.run(args);
        assertEquals(2, result.exitCode, result.toString());
        List<String> lines = result.errorLines();
        assertEquals(1, lines.size(), "one line on stderr: " + result.stderr);
        for (String f : fragments) {
            assertTrue(lines.get(0).contains(f), "'" + f + "' missing from: " + lines.get(0));
        }
        assertEquals(before, Trees.snapshot(tmp), "nothing left behind");
    }

    private String[] predict(Path model, Path input, String... extra) {
        List<String> args = new ArrayList<>(List.of("predict", "--model", model.toString(), "--input",
            input.toString(), "--output", tmp.resolve("out.jsonl").toString(), "--master", Cli.MASTER));
        args.addAll(List.of(extra));
        return args.toArray(new String[0]);
    }

    @Test
    @DisplayName("bad models and inputs: exit 2, one line naming the model, column or line, nothing left behind")
    void badInput() throws IOException {
        Path input = fixture.writeInput(tmp.resolve("in.jsonl"));
        Path model = trained(input);
        Path notModel = Files.createDirectories(tmp.resolve("photos"));
        Files.writeString(notModel.resolve("cat.txt"), "meow");
        Path unknown = tmp.resolve("unknown");
        Trees.copy(model, unknown);
        Path metadata;
        try (java.util.stream.Stream<Path> parts = Files.list(unknown.resolve("metadata"))) {
            metadata = parts.filter(p -> p.getFileName().toString().startsWith("part-")).findFirst().orElseThrow();
        }
        Files.deleteIfExists(metadata.resolveSibling("." + metadata.getFileName() + ".crc"));
        Files.writeString(metadata, Files.readString(metadata).replaceFirst("\"class\":\"[^\"]+\"",
            "\"class\":\"com.example.NoSuchModel\""));
        Path noFeatures = tmp.resolve("texts.jsonl");
        Files.writeString(noFeatures, "{\"text\":\"no sequences here\"}\n");
        Path badRow = tmp.resolve("bad.jsonl");
        List<String> lines = new ArrayList<>(Files.readAllLines(input));
        lines.set(2, lines.get(2).replaceFirst("\\[\\[([^,\\]]+),", "[[")); // one value short in line 3
        Files.write(badRow, lines);
        Map<String, String> before = Trees.snapshot(tmp);

        assertRefused(before, predict(notModel, input), "--model " + notModel + " is not a saved Spark ML model");
        assertRefused(before, predict(tmp.resolve("missing"), input), "--model " + tmp.resolve("missing"),
            "no such directory");
        assertRefused(before, predict(unknown, input), "com.example.NoSuchModel", "cannot load");
        assertRefused(before, predict(model, noFeatures), "--input " + noFeatures, "query", "featuresCol");
        assertRefused(before, predict(model, badRow), "--input " + badRow + ": line 3: column query");
        assertRefused(before, predict(model, input, "--features-col", "x"), "x", "featuresCol");
        assertRefused(before, predict(model, input, "--output-format", "csv"), "--output-format");
    }

    private static double[] doubles(JsonNode array) {
        double[] out = new double[array.size()];
        Iterator<JsonNode> it = array.elements();
        for (int i = 0; it.hasNext(); i++) {
            out[i] = it.next().asDouble();
        }
        return out;
    }

    @Test
    @DisplayName("--help lists predict's options")
    void help() {
        CommandLineRun run = CommandLineRun.of("predict", "--help");
        assertEquals(0, run.exitCode);
        for (String option : List.of("--model", "--input", "--output", "--overwrite", "--output-format",
            "--features-col", "--master")) {
            assertTrue(run.out.contains(option), option + " in " + run.out);
        }
        assertFalse(run.out.contains("--weights-col"));
    }
}

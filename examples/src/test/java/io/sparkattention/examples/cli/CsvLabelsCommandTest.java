package io.sparkattention.examples.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A CSV file as Python's {@code csv} module writes it — {@code labelled_texts.csv}, written by
 * {@code python/labelled_texts_csv.py}: quotes written twice inside quoted fields, commas and line
 * breaks inside texts, CRLF record ends, string labels — through {@code fine-tune} and
 * {@code predict}: the texts are read whole, the labels numbered as MLlib's StringIndexer numbers
 * them and given back as {@code predicted_label}; a malformed record and a bad row are named by
 * the CSV line they start on.
 */
class CsvLabelsCommandTest {

    /** The file's labels by StringIndexer's index: sport 4 times, then cooking and finance 3 times (a tie). */
    private static final List<String> LABELS = List.of("sport", "cooking", "finance");

    @TempDir
    Path dir;

    @Test
    @DisplayName("Python's CSV with string labels: fine-tune then predict give every label back as predicted_label")
    void pythonCsvThroughFineTuneAndPredict() throws Exception {
        Path input = resource("labelled_texts.csv");
        Path model = dir.resolve("model");
        CommandLineRun fit = CommandLineRun.of("fine-tune", "--input", input.toString(), "--output",
            model.toString(), "--master", Cli.MASTER, "--trainable-layers", "0", "--step-size", "0.05",
            "--max-iter", "40", "--dropout", "0", "--max-length", "32", "--seed", "7");
        assertEquals(0, fit.exitCode, fit.err);
        List<String> steps = fit.stepLines();
        assertEquals(41, steps.size(), fit.out);
        assertEquals(1.0, Cli.JSON.readTree(steps.get(40)).get("training_accuracy").asDouble(), steps.get(40));
        assertTrue(fit.outLines().contains("{\"setup\":\"indexing the labels\"}"),
            "the setup reports its phases before the first step: " + fit.out);
        assertTrue(fit.outLines().get(0).startsWith("{\"setup\":"), fit.out);

        Path predicted = dir.resolve("predicted.jsonl");
        CommandLineRun predict = CommandLineRun.of("predict", "--model", model.toString(), "--input",
            input.toString(), "--output", predicted.toString(), "--master", Cli.MASTER);
        assertEquals(0, predict.exitCode, predict.err);
        List<JsonNode> rows = Cli.readJsonLines(predicted);
        assertEquals(10, rows.size());
        assertEquals("Whisk the eggs,\nthen fold in the flour.", rows.get(1).get("text").asText(),
            "a quoted field keeps its comma and line break");
        assertEquals("The striker scored twice, and the \"home\" crowd roared.", rows.get(0).get("text").asText(),
            "a quote written twice is one quote");
        for (JsonNode row : rows) {
            String label = row.get("label").asText();
            assertEquals(label, row.get(StringLabels.PREDICTED_LABEL).asText(), row.toString());
            assertEquals(LABELS.indexOf(label), row.get("prediction").asInt(),
                "the index StringIndexer gives the label (frequency, then alphabetical): " + row);
        }
        CommandLineRun describe = CommandLineRun.of("describe", model.toString(), "--master", Cli.MASTER);
        assertEquals(0, describe.exitCode, describe.err);
        JsonNode described = Cli.JSON.readTree(describe.out);
        JsonNode classifier = described.get("stages").get(1);
        assertArrayEquals(LABELS.toArray(), Cli.JSON.convertValue(classifier.get("labels"), String[].class),
            describe.out);
        assertEquals(384, classifier.get("encoder").get("hidden").asInt(), describe.out);
        assertEquals(3, classifier.get("classes").asInt(), describe.out);
        assertEquals("the head only (the encoder frozen)", classifier.get("fine_tuned").asText(), describe.out);
        assertFalse(classifier.has("features"), "no feature width for token ids: " + describe.out);
    }

    @Test
    @DisplayName("a CSV record with a field too many is named by the line it starts on, after records over lines")
    void malformedRecordNamesItsLine() throws Exception {
        Path input = dir.resolve("bad.csv");
        Files.writeString(input, "text,label\r\n\"one,\ntwo\",a\r\n\"three \"\"q\"\"\",b\r\nfour,c,extra\r\n",
            StandardCharsets.UTF_8);
        Path out = dir.resolve("embedded.jsonl");
        CommandLineRun run = CommandLineRun.of("embed", "--input", input.toString(), "--output", out.toString(),
            "--master", Cli.MASTER, "--max-length", "16");
        assertEquals(2, run.exitCode, run.err);
        assertEquals(List.of("spark-attention embed: --input " + input + ": malformed CSV record on line 5 (it has 3 "
            + "fields, the header 2)"), run.errorLines());
        assertFalse(Files.exists(out), "nothing at --output");
    }

    @Test
    @DisplayName("fine-tune: a record without a label is named by its CSV line, not its row")
    void missingLabelNamesItsLine() throws Exception {
        Path input = dir.resolve("labels.csv");
        Files.writeString(input, "text,label\r\n\"a\nb\",x\r\nc,y\r\n\"d, \"\"e\"\"\nf\",x\r\ng,\r\nh,y\r\n",
            StandardCharsets.UTF_8);
        CommandLineRun run = CommandLineRun.of("fine-tune", "--input", input.toString(), "--output",
            dir.resolve("model").toString(), "--master", Cli.MASTER, "--trainable-layers", "0", "--max-iter", "1",
            "--max-length", "16");
        assertEquals(2, run.exitCode, run.err);
        assertEquals(1, run.errorLines().size(), run.err);
        assertTrue(run.errorLines().get(0).contains("line 7"), "the record g, starts on line 7: " + run.err);
        assertTrue(run.errorLines().get(0).contains("label"), run.err);
        assertFalse(Files.exists(dir.resolve("model")), "nothing at --output");
    }

    @Test
    @DisplayName("labels written as class indices (0, 1, ...) are those indices, as in JSON lines: no predicted_label")
    void indexLabelsStayIndices() {
        StringLabels indices = new StringLabels(new String[] {"1", "0", "12"});
        StringLabels words = new StringLabels(new String[] {"1", "one"});
        StringLabels padded = new StringLabels(new String[] {"01", "1"});
        assertTrue(indices.indices);
        assertFalse(words.indices);
        assertFalse(padded.indices, "01 is a label, not an index");
    }

    @Test
    @DisplayName("labelled_texts.csv is what Python's csv module writes: its script, run again, gives the same bytes")
    void resourceIsPythonsOwn() throws Exception {
        Path python = Path.of("/usr/bin/python3");
        Assumptions.assumeTrue(Files.isExecutable(python), "no /usr/bin/python3 to run the script with");
        Path script = dir.resolve("labelled_texts_csv.py");
        try (InputStream in = getClass().getResourceAsStream("/python/labelled_texts_csv.py")) {
            Files.copy(in, script);
        }
        Path written = dir.resolve("written.csv");
        Process p = new ProcessBuilder(python.toString(), script.toString(), written.toString())
            .redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), output);
        assertArrayEquals(Files.readAllBytes(resource("labelled_texts.csv")), Files.readAllBytes(written));
    }

    /** A test resource as a file. */
    private Path resource(String name) throws IOException {
        Path file = dir.resolve(name);
        try (InputStream in = getClass().getResourceAsStream("/csv/" + name)) {
            Files.copy(in, file);
        }
        return file;
    }
}

package io.sparkattention.examples.cli;

import io.sparkattention.io.SafeTensorsWriter;
import io.sparkattention.io.Tensor;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code train} on bad input and bad options: exit code 2, one line on stderr naming the column,
 * row, file, tensor or option, nothing on stdout, and nothing at {@code --output} or
 * {@code --export-pytorch} (nor a temporary sibling of either).
 */
class TrainCommandErrorsTest {

    /** Two good rows of E = 4. */
    private static final String ROW0 = "{\"query\":[[0.1,0.2,0.3,0.4],[0.5,0.6,0.7,0.8]],\"label\":0,\"w\":1.0}";
    private static final String ROW1 = "{\"query\":[[0.4,0.3,0.2,0.1]],\"label\":1,\"w\":2.0}";

    @TempDir
    Path dir;

    private Path input(String... lines) {
        Path in = dir.resolve("in.jsonl");
        Cli.writeJsonLines(in, List.of((Object[]) lines));
        return in;
    }

    /** {@code train} on {@code in} (two heads and two steps unless {@code extra} says otherwise), writing model/ and state.safetensors. */
    private CommandLineRun train(Path in, String... extra) {
        List<String> args = new ArrayList<>(List.of("train", "--input", in.toString(), "--output",
            dir.resolve("model").toString(), "--export-pytorch", dir.resolve("state.safetensors").toString(),
            "--master", Cli.MASTER));
        for (String[] option : new String[][] {{"--num-heads", "2"}, {"--max-iter", "2"}}) {
            if (!List.of(extra).contains(option[0])) {
                args.addAll(List.of(option));
            }
        }
        args.addAll(List.of(extra));
        return CommandLineRun.of(args.toArray(new String[0]));
    }

    /** Exit 2, one stderr line holding every fragment, an empty stdout, and only the inputs left in the directory. */
    private void assertBadInput(CommandLineRun run, String... fragments) {
        assertEquals(2, run.exitCode, run.err);
        List<String> lines = run.errorLines();
        assertEquals(1, lines.size(), "one line on stderr: " + run.err);
        assertTrue(lines.get(0).startsWith("spark-attention train: "), lines.get(0));
        for (String f : fragments) {
            assertTrue(lines.get(0).contains(f), "'" + f + "' missing from: " + lines.get(0));
        }
        assertEquals("", run.out, "nothing on stdout");
        List<String> left = new ArrayList<>(Cli.listNames(dir));
        left.removeIf(n -> n.startsWith("in.") || n.startsWith("initial"));
        assertEquals(List.of(), left, "nothing at --output or --export-pytorch, and no temporary left");
    }

    /** A state_dict for E = 4, K classes, seeded; {@code poison} is a tensor given a NaN, or null. */
    private Path initial(int classes, String poison, String drop) throws IOException {
        Random random = new Random(5);
        Map<String, long[]> shapes = new LinkedHashMap<>();
        shapes.put("attention.in_proj_weight", new long[] {12, 4});
        shapes.put("attention.in_proj_bias", new long[] {12});
        shapes.put("attention.out_proj.weight", new long[] {4, 4});
        shapes.put("attention.out_proj.bias", new long[] {4});
        shapes.put("classifier.weight", new long[] {classes, 4});
        shapes.put("classifier.bias", new long[] {classes});
        Map<String, Tensor> tensors = new LinkedHashMap<>();
        shapes.forEach((name, shape) -> {
            float[] v = new float[(int) (shape.length == 1 ? shape[0] : shape[0] * shape[1])];
            for (int i = 0; i < v.length; i++) {
                v[i] = (float) (random.nextGaussian() * 0.1);
            }
            if (name.equals(poison)) {
                v[1] = Float.NaN;
            }
            if (!name.equals(drop)) {
                tensors.put(name, Tensor.f32(v, shape));
            }
        });
        Path file = dir.resolve("initial.safetensors");
        SafeTensorsWriter.write(file, tensors, null);
        return file;
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
        "--pooling|max|--pooling: expected one of mean, first, last, got 'max'",
        "--solver|sgd|--solver: expected one of adam, gd, got 'sgd'",
        "--num-heads|0|--num-heads must be >= 1, got 0",
        "--max-iter|-1|--max-iter must be >= 0, got -1",
        "--step-size|0|--step-size must be a finite number > 0, got 0.0",
        "--step-size|NaN|--step-size must be a finite number > 0, got NaN",
        "--weight-decay|-0.1|--weight-decay must be a finite number >= 0, got -0.1",
        "--mini-batch-fraction|0|--mini-batch-fraction must be in (0, 1], got 0.0",
        "--mini-batch-fraction|1.5|--mini-batch-fraction must be in (0, 1], got 1.5",
        "--tol|-1|--tol must be a finite number >= 0, got -1.0",
        "--max-iter|ten|'ten' is not an int",
        "--label-col|query|--features-col and --label-col are both 'query'",
    })
    @DisplayName("an option out of its range or list is refused before Spark starts, naming it and the values it takes")
    void badOptions(String option, String value, String message) {
        assertBadInput(train(input(ROW0, ROW1), option, value), option, message);
    }

    @Test
    @DisplayName("a missing features, label or weight column names the column, its option and the input's columns")
    void missingColumns() {
        Path in = input(ROW0, ROW1);
        assertBadInput(train(in, "--features-col", "tokens"), "has no column tokens (--features-col); its columns: ");
        assertBadInput(train(in, "--label-col", "y"), "has no column y (--label-col)");
        assertBadInput(train(in, "--weight-col", "weight"), "has no column weight (--weight-col)");
        assertBadInput(train(in, "--key-length-col", "n"), "has no column n (--key-length-col)");
    }

    @Test
    @DisplayName("a label that is not an integer >= 0 names its line and the column")
    void badLabels() {
        assertBadInput(train(input(ROW0, ROW1.replace("\"label\":1", "\"label\":1.5"))),
            "in.jsonl: line 2: column label is 1.5, not a class index");
        assertBadInput(train(input(ROW0.replace("\"label\":0", "\"label\":-1"), ROW1)),
            "in.jsonl: line 1: column label is -1.0, not a class index");
        assertBadInput(train(input(ROW0, ROW1.replace("\"label\":1", "\"label\":\"cat\""))),
            "line 2: column label: expected double, but the value is a string");
        assertBadInput(train(input(ROW0.replace("\"label\":0", "\"label\":\"cat\""), ROW1)),
            "column label (--label-col) holds string values; expected a number");
    }

    @Test
    @DisplayName("a stray large label exits 2 with one line naming the line and the class limit, not an OutOfMemoryError")
    void strayLargeLabels() {
        for (String label : new String[] {"1e8", "2e7", "1e9"}) {
            assertBadInput(train(input(ROW0, ROW1.replace("\"label\":1", "\"label\":" + label))),
                "in.jsonl: line 2: column label is " + Double.parseDouble(label) + ", outside [0, 1000)");
        }
        assertBadInput(train(input(ROW0, ROW1.replace("\"label\":1", "\"label\":1e8"))), "set --num-classes");
    }

    @Test
    @DisplayName("--num-classes K bounds the labels: a label >= K names its line and K; K < 2 is refused")
    void numClassesBoundsTheLabels() {
        assertBadInput(train(input(ROW0, ROW1.replace("\"label\":1", "\"label\":3")), "--num-classes", "3"),
            "in.jsonl: line 2: column label is 3.0, outside [0, 3)");
        assertBadInput(train(input(ROW0, ROW1), "--num-classes", "1"), "--num-classes must be >= 2");
        assertBadInput(train(input(ROW0, ROW1), "--num-classes", "2000000000"), "--num-classes 2000000000 give");
    }

    @Test
    @DisplayName("a label outside the K classes of the initial weights names the line, the value and the file")
    void labelOutsideTheClasses() throws IOException {
        Path weights = initial(2, null, null);
        assertBadInput(train(input(ROW0, ROW1.replace("\"label\":1", "\"label\":2")), "--initial-weights",
            weights.toString()), "line 2: column label is 2.0, outside [0, 2): the 2 classes of the initial "
            + "weights", "initial.safetensors");
    }

    @Test
    @DisplayName("a NaN feature, a NaN or negative weight name the line and the column")
    void nonFiniteValues() {
        assertBadInput(train(input(ROW0, ROW1.replace("0.3", "NaN"))),
            "line 2: column query has NaN at row 0, position 1");
        assertBadInput(train(input(ROW0, ROW1.replace("2.0", "NaN")), "--weight-col", "w"), "line 2: column w is NaN");
        assertBadInput(train(input(ROW0.replace("1.0", "-1.0"), ROW1), "--weight-col", "w"), "line 1: column w is -1.0");
    }

    @Test
    @DisplayName("heads that do not divide E, ragged widths and rows without tokens are refused, named")
    void badShapes() {
        assertBadInput(train(input(ROW0, ROW1), "--num-heads", "3"),
            "--num-heads (3) must divide the embedding width E (4) of column query");
        assertBadInput(train(input(ROW0, ROW1.replace("[[0.4,0.3,0.2,0.1]]", "[[0.4,0.3,0.2]]"))), "line 2", "query");
        assertBadInput(train(input(ROW0, ROW1.replace("[[0.4,0.3,0.2,0.1]]", "[]"))), "line 2", "query");
    }

    @Test
    @DisplayName("an empty input file is refused: training needs at least one row")
    void emptyInput() throws IOException {
        Path empty = dir.resolve("in.jsonl");
        Files.writeString(empty, "");
        assertBadInput(train(empty), "has no rows: train needs at least one");
    }

    @Test
    @DisplayName("initial weights that are missing, not safetensors, short of a tensor, NaN or of another E are refused")
    void badInitialWeights() throws IOException {
        Path in = input(ROW0, ROW1);
        assertBadInput(train(in, "--initial-weights", dir.resolve("initial-none.safetensors").toString()),
            "--initial-weights", "initial-none.safetensors: no such file");
        Path junk = dir.resolve("initial-junk.safetensors");
        Files.writeString(junk, "not a safetensors file");
        assertBadInput(train(in, "--initial-weights", junk.toString()), "--initial-weights", "initial-junk.safetensors");
        assertBadInput(train(in, "--initial-weights", initial(2, null, "attention.out_proj.bias").toString()),
            "--initial-weights", "attention.out_proj.bias", "missing");
        assertBadInput(train(in, "--initial-weights", initial(2, "classifier.bias", null).toString()),
            "--initial-weights", "classifier.bias", "NaN");
        assertBadInput(train(in, "--initial-weights", initial(2, null, null).toString(), "--num-heads", "3"),
            "--num-heads (3) must divide the embedding width E (4) of --initial-weights");
        String wide = "{\"query\":[[0.1,0.2,0.3,0.4,0.5,0.6]],\"label\":0}";
        assertBadInput(train(input(wide), "--initial-weights", initial(2, null, null).toString()),
            "classifier.weight", "embed_dim 4", "E = 6");
    }

    @Test
    @DisplayName("a malformed JSON line names the input")
    void malformedJson() {
        assertBadInput(train(input(ROW0, "{\"query\": [[1, 2]")), "--input", "in.jsonl");
    }
}

package io.sparkattention.examples.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.sparkattention.io.SafeTensors;
import io.sparkattention.ml.classification.BertClassifier;
import io.sparkattention.testing.SparkTestSession;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Where {@code fine-tune} takes what the user did not spell out: the heads and the starting head
 * from a {@code --safetensors} file, token ids from an {@code input_ids} column (named, with the
 * option to give), the seed from the estimator (shown by {@code --help}).
 */
class FineTuneSourcesTest {

    @TempDir
    Path dir;

    @Test
    @DisplayName("--seed's default, shown by --help, is the estimator's own")
    void seedDefaultIsTheEstimators() {
        assertEquals(new BertClassifier().getSeed(),
            Long.parseLong(FineTuneCommand.DEFAULT_SEED));
        CommandLineRun help = CommandLineRun.of("fine-tune", "--help");
        assertTrue(help.out.contains("(default " + FineTuneCommand.DEFAULT_SEED + ", the estimator's own)"), help.out);
        assertFalse(help.out.contains("keep"), "--handle-invalid offers what fine-tune takes: " + help.out);
    }

    @Test
    @DisplayName("--safetensors holding a head (fine-tune's own export): its heads from the metadata, training starts "
        + "from its head and says so")
    void safetensorsHeadIsTheStart() throws Exception {
        Path fixture = FineTuneCommandTest.fixture(dir, "ft_head_only_cls");
        SafeTensors st = SafeTensors.read(fixture);
        JsonNode config = Cli.JSON.readTree(st.metadata().get("config"));
        Path input = FineTuneCommandTest.writeIds(st, dir.resolve("in.jsonl"), -1, -1);
        Path first = dir.resolve("first.safetensors");
        CommandLineRun fit = CommandLineRun.of("fine-tune", "--input", input.toString(), "--output",
            dir.resolve("m1").toString(), "--master", Cli.MASTER, "--ids-col", "input_ids", "--safetensors",
            fixture.toString(), "--prefix", "initial.", "--num-heads", config.get("num_heads").asText(),
            "--num-classes", "2", "--trainable-layers", "0", "--max-iter", "2", "--export-pytorch", first.toString());
        assertEquals(0, fit.exitCode, fit.err);
        Path second = dir.resolve("second.safetensors");
        CommandLineRun again = CommandLineRun.of("fine-tune", "--input", input.toString(), "--output",
            dir.resolve("m2").toString(), "--master", Cli.MASTER, "--ids-col", "input_ids", "--safetensors",
            first.toString(), "--max-iter", "0", "--export-pytorch", second.toString());
        assertEquals(0, again.exitCode, again.err);
        assertTrue(again.outLines().contains(Cli.JSON.createObjectNode().put("setup", "starting from the classifier "
            + "head in --safetensors " + first).toString()), again.out);
        SafeTensors a = SafeTensors.read(first), b = SafeTensors.read(second);
        assertTrue(Arrays.equals(a.floats("classifier.weight"), b.floats("classifier.weight")),
            "no step: the head is the file's");
        assertTrue(Arrays.equals(a.floats("classifier.bias"), b.floats("classifier.bias")));
    }

    @ParameterizedTest
    @ValueSource(strings = {"a text column too", "no text column"})
    @DisplayName("Parquet with an input_ids column and no --ids-col: exit 2 naming the options and the hint")
    void idsColumnWithoutIdsColIsNamed(String texts) throws Exception {
        Path input = dir.resolve("ids.parquet");
        String text = texts.equals("no text column") ? "" : "'a cat' AS text, ";
        SparkTestSession.get().sql("SELECT " + text + "array(101, 102) AS input_ids, "
            + "id % 2 AS label FROM range(4)").coalesce(1).write().parquet(input.toString());
        CommandLineRun run = CommandLineRun.of("fine-tune", "--input", input.toString(), "--output",
            dir.resolve("model").toString(), "--master", Cli.MASTER, "--max-iter", "1");
        assertEquals(2, run.exitCode, run.err);
        assertEquals(1, run.errorLines().size(), run.err);
        String message = run.errorLines().get(0);
        assertTrue(message.contains("give --ids-col input_ids") && message.contains("--text-col"), message);
        assertFalse(message.contains("outputCol") || message.contains("tokensCol"), message);
        assertFalse(Files.exists(dir.resolve("model")), "nothing at --output");
    }
}

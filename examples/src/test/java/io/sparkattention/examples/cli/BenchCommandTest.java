package io.sparkattention.examples.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code spark-attention bench}: the JSON contract of both modes, with sizes small enough to run in a test. */
class BenchCommandTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    @DisplayName("kernel mode: one JSON line per length with the documented fields; gflops counts 4·L·S·d·BH")
    void kernelModeFields() throws Exception {
        CommandLineRun run = CommandLineRun.of("bench", "--seq-len", "100,130", "--head-dim", "16", "--batch-heads",
            "3", "--repeat", "3", "--threads", "2");
        assertEquals(0, run.exitCode, run.err);
        List<JsonNode> lines = json(run);
        assertEquals(2, lines.size(), run.out);
        for (String field : new String[] {"seq_len", "head_dim", "batch_heads", "causal", "threads", "median_ms",
            "min_ms", "max_ms", "gflops", "blas", "gc", "openblas_coretype"}) {
            assertTrue(lines.get(0).has(field), field + " in " + lines.get(0));
        }
        JsonNode first = lines.get(0);
        assertFalse(first.get("gc").asText().isEmpty(), "the JVM's garbage collectors: " + first);
        assertEquals(100, first.get("seq_len").asInt());
        assertEquals(130, lines.get(1).get("seq_len").asInt());
        assertEquals(2, first.get("threads").asInt());
        double median = first.get("median_ms").asDouble();
        assertTrue(first.get("min_ms").asDouble() <= median && median <= first.get("max_ms").asDouble(), run.out);
        assertEquals(4.0 * 100 * 100 * 16 * 3 / (median * 1e6), first.get("gflops").asDouble(),
            0.01 * first.get("gflops").asDouble(), run.out);
    }

    @Test
    @DisplayName("--peer fma: a line after the kernel's at each length, with the same threads and work per repetition; "
        + "the kernel's fraction_of_fma is its gflops over the loop's")
    void fmaPeerBesideTheKernel() throws Exception {
        CommandLineRun run = CommandLineRun.of("bench", "--seq-len", "256", "--head-dim", "32", "--batch-heads", "4",
            "--repeat", "3", "--threads", "2", "--peer", "fma");
        assertEquals(0, run.exitCode, run.err);
        List<JsonNode> lines = json(run);
        assertEquals(2, lines.size(), run.out);
        JsonNode kernel = lines.get(0), fma = lines.get(1);
        assertEquals("kernel", kernel.get("mode").asText());
        assertEquals("fma", fma.get("mode").asText());
        for (String field : new String[] {"seq_len", "head_dim", "batch_heads", "causal", "threads"}) {
            assertEquals(kernel.get(field), fma.get(field), field);
        }
        assertEquals(2, fma.get("contenders").asInt());
        // The loop's own flops: whole steps of 12 chains × lanes × 2 on each of the 2 threads, within
        // one step per thread of the configuration's 4·L·S·d·BH; gflops is them over the median.
        double perStep = 2.0 * 12 * fma.get("vector_bits").asInt() / 32, work = 4.0 * 256 * 256 * 32 * 4;
        double flops = fma.get("flops").asDouble();
        assertEquals(work, flops, 2 * perStep, fma.toString());
        assertEquals(0, flops % (2 * perStep), 0.0, "whole steps on each thread");
        assertEquals(flops / (fma.get("median_ms").asDouble() * 1e6), fma.get("gflops").asDouble(),
            0.001 + 0.01 * fma.get("gflops").asDouble(), fma.toString());
        assertEquals(kernel.get("gflops").asDouble() / fma.get("gflops").asDouble(),
            kernel.get("fraction_of_fma").asDouble(), 0.0006 + 0.001 * kernel.get("fraction_of_fma").asDouble());

        CommandLineRun unknown = CommandLineRun.of("bench", "--seq-len", "64", "--peer", "torch");
        assertEquals(2, unknown.exitCode, unknown.err);
        assertEquals(List.of("spark-attention bench: --peer: unknown peer \"torch\", expected ort or fma"),
            unknown.errorLines());
        CommandLineRun spark = CommandLineRun.of("bench", "--spark", "--seq-len", "64", "--peer", "fma");
        assertEquals(2, spark.exitCode, spark.err);
        assertEquals(List.of("spark-attention bench: --peer runs beside the kernel, not with --spark (use "
            + "--compare-kernel)"), spark.errorLines());
    }

    @Test
    @DisplayName("spark mode: R rows of BH heads count as R·BH heads of work; the checksum covers every row")
    void sparkModeCountsEveryRow() throws Exception {
        JsonNode one = sparkRun("1"), two = sparkRun("2"), cached = sparkRun("2", "--cache-input");
        JsonNode together = sparkRun("2", "--partitions", "1"), flat = sparkRun("2", "--flat");
        assertEquals("spark", two.get("mode").asText());
        assertEquals("batch", two.get("resolved_strategy").asText());
        assertEquals(2, two.get("rows").asInt());
        assertEquals(2, two.get("partitions").asInt(), "one row per partition by default");
        // Untimed repetitions until five in a row are close to the fastest, or 20 of them.
        int untimed = two.get("warmup_ms").size();
        assertTrue(two.get("warmup_settled").asBoolean() ? untimed >= 5 : untimed == 20, two.toString());
        // 4·L·S·d·(rows·BH) = 0.54 GFLOP: large enough that the printed three decimals tell R·BH from BH
        double expected = 4.0 * 512 * 512 * 64 * 2 * 2 / (two.get("median_ms").asDouble() * 1e6);
        assertEquals(expected, two.get("gflops").asDouble(), 0.0005 + 0.01 * expected, two.toString());
        assertTrue(Math.abs(expected / 2 - two.get("gflops").asDouble()) > 0.2 * expected / 2, "not counted per row");
        assertTrue(Double.isFinite(two.get("checksum").asDouble()), two.toString());
        assertTrue(one.get("checksum").asDouble() != two.get("checksum").asDouble(),
            "the second row (other random inputs) adds to the checksum");
        assertEquals(true, cached.get("cached_input").asBoolean());
        assertEquals(two.get("checksum").asDouble(), cached.get("checksum").asDouble(), 0.0,
            "a cached input is the same input");
        assertEquals(1, together.get("partitions").asInt());
        assertEquals(true, flat.get("flat_input").asBoolean());
        assertEquals(two.get("checksum").asDouble(), flat.get("checksum").asDouble(), 0.0,
            "flat columns hold the same matrices and give the same outputs");
        double sum = two.get("checksum").asDouble();
        assertEquals(sum, together.get("checksum").asDouble(), 1e-9 * Math.abs(sum), "the same rows in one partition");
    }

    @Test
    @DisplayName("--help shows the user's flags and hides the lab's, which BENCHMARKS.md documents")
    void helpHidesLabFlags() {
        CommandLineRun help = CommandLineRun.of("bench", "--help");
        assertEquals(0, help.exitCode, help.err);
        for (String flag : new String[] {"--seq-len", "--threads", "--peer", "--spark", "--rows", "--master",
            "--backward", "--train", "--embed-dim", "--num-heads", "--rows-per-step", "--layer"}) {
            assertTrue(listsOption(help.out, flag), flag + " in\n" + help.out);
        }
        for (String flag : new String[] {"--tile-ops", "--block-q", "--block-k", "--compare-causal", "--compare-kernel"}) {
            assertFalse(listsOption(help.out, flag), flag + " in\n" + help.out);
        }
        assertTrue(help.out.contains("BENCHMARKS.md"), help.out);
    }

    /** Whether a usage text has an option line for {@code flag} (picocli: indented, then "--flag" or "--flag=..."). */
    private static boolean listsOption(String usage, String flag) {
        return usage.lines().anyMatch(line -> line.matches("\\s+(-\\w, )?" + flag + "([=\\s].*)?"));
    }

    @Test
    @DisplayName("bad options end with exit code 2 and one line naming the option")
    void badOptions() {
        CommandLineRun run = CommandLineRun.of("bench", "--spark", "--rows", "0", "--seq-len", "64");
        assertEquals(2, run.exitCode, run.err);
        assertEquals(List.of("spark-attention bench: --rows must be >= 1, got 0"), run.errorLines());
        CommandLineRun spread = CommandLineRun.of("bench", "--spark", "--rows", "2", "--partitions", "3",
            "--seq-len", "64");
        assertEquals(2, spread.exitCode, spread.err);
        assertEquals(List.of("spark-attention bench: --partitions must be <= --rows (2), got 3"), spread.errorLines());
        CommandLineRun kernel = CommandLineRun.of("bench", "--rows", "4", "--seq-len", "64");
        assertEquals(2, kernel.exitCode, kernel.err);
        assertEquals(List.of(
            "spark-attention bench: --rows, --partitions, --cache-input, --master, --strategy, --compare-kernel and "
                + "--flat need --spark"),
            kernel.errorLines());
        CommandLineRun cluster = CommandLineRun.of("bench", "--spark", "--compare-kernel", "--master",
            "spark://127.0.0.1:1", "--seq-len", "64");
        assertEquals(2, cluster.exitCode, cluster.err);
        assertEquals(List.of("spark-attention bench: --compare-kernel needs a local master (the kernel runs in this "
            + "JVM), got spark://127.0.0.1:1"), cluster.errorLines());
    }

    @Test
    @DisplayName("--peer-only and --train-lm refuse what they cannot run, exit code 2 and one line")
    void peerOnlyAndTrainLmBadOptions() {
        CommandLineRun kernel = CommandLineRun.of("bench", "--peer-only", "--peer", "fma", "--seq-len", "64");
        assertEquals(2, kernel.exitCode, kernel.err);
        assertEquals(List.of("spark-attention bench: --peer-only needs --encoder, --fine-tune or --train-lm"),
            kernel.errorLines());
        CommandLineRun alone = CommandLineRun.of("bench", "--encoder", "--peer-only");
        assertEquals(2, alone.exitCode, alone.err);
        assertEquals(List.of("spark-attention bench: --peer-only needs --peer"), alone.errorLines());
        CommandLineRun ort = CommandLineRun.of("bench", "--train-lm", "--peer", "ort");
        assertEquals(2, ort.exitCode, ort.err);
        assertEquals(List.of("spark-attention bench: --peer: unknown peer \"ort\" for --train-lm, expected torch"),
            ort.errorLines());
        CommandLineRun both = CommandLineRun.of("bench", "--train-lm", "--lm");
        assertEquals(2, both.exitCode, both.err);
        assertEquals(List.of("spark-attention bench: --train-lm, --lm, --encoder and --fine-tune are separate modes: "
            + "give one of them"), both.errorLines());
        CommandLineRun gpt2 = CommandLineRun.of("bench", "--train-lm-gpt2", "--seq-len", "64");
        assertEquals(2, gpt2.exitCode, gpt2.err);
        assertEquals(List.of("spark-attention bench: --train-lm-gpt2 needs --train-lm"), gpt2.errorLines());
        CommandLineRun rows = CommandLineRun.of("bench", "--train-lm", "--rows-per-step", "4");
        assertEquals(2, rows.exitCode, rows.err);
        assertEquals(List.of("spark-attention bench: --rows-per-step is not an option of --train-lm"),
            rows.errorLines());
    }

    @Test
    @DisplayName("--compare-kernel: each stage line is followed by the kernel's on the same R·BH heads, with their ratio")
    void sparkBesideTheKernel() throws Exception {
        List<JsonNode> lines = sparkLines("2", "--repeat", "3", "--compare-kernel");
        assertEquals(2, lines.size(), lines.toString());
        JsonNode stage = lines.get(0), kernel = lines.get(1);
        assertEquals("spark", stage.get("mode").asText());
        assertEquals("kernel", kernel.get("mode").asText());
        assertEquals(4, kernel.get("batch_heads").asInt(), "2 rows of 2 heads");
        assertEquals(Runtime.getRuntime().availableProcessors(), kernel.get("threads").asInt(),
            "one kernel thread per core of local[*]");
        assertEquals(kernel.get("median_ms").asDouble() / stage.get("median_ms").asDouble(),
            stage.get("throughput_vs_kernel").asDouble(), 0.0006, lines.toString());
        assertEquals(2, stage.get("contenders").asInt());
        assertTrue(stage.get("jit_ms").isIntegralNumber() && stage.get("jit_ms").asLong() >= 0, stage.toString());
        assertEquals(stage.get("warmup_ms").size(), stage.get("warmup_jit_ms").size(), stage.toString());
        assertEquals(3, stage.get("times_ms").size());
        assertEquals(3, kernel.get("times_ms").size());
    }

    @Test
    @DisplayName("--backward: each forward line is followed by its backward line; gflops counts 2.5× the forward's "
        + "flops and vs_forward is the ratio of the two lines' GFLOP/s")
    void backwardBesideTheForward() throws Exception {
        CommandLineRun run = CommandLineRun.of("bench", "--backward", "--compare-causal", "--seq-len", "100",
            "--head-dim", "16", "--batch-heads", "3", "--repeat", "3", "--threads", "2");
        assertEquals(0, run.exitCode, run.err);
        List<JsonNode> lines = json(run);
        assertEquals(4, lines.size(), run.out);
        for (int i = 0; i < 4; i += 2) {
            JsonNode forward = lines.get(i), backward = lines.get(i + 1);
            boolean causal = i == 2;
            assertEquals("kernel", forward.get("mode").asText(), run.out);
            assertEquals("backward", backward.get("mode").asText(), run.out);
            for (String field : new String[] {"seq_len", "head_dim", "batch_heads", "threads", "tile_ops", "blas"}) {
                assertEquals(forward.get(field), backward.get(field), field);
            }
            assertEquals(causal, forward.get("causal").asBoolean());
            assertEquals(causal, backward.get("causal").asBoolean());
            for (String field : new String[] {"median_ms", "min_ms", "max_ms", "gc", "openblas_coretype", "block_q",
                "block_k", "peak_heap_mb", "peak_rss_mb", "times_ms", "gradient_mb", "partial_dq_mb"}) {
                assertTrue(backward.has(field), field + " in " + backward);
            }
            assertEquals(3, backward.get("times_ms").size());
            assertEquals(4, backward.get("contenders").asInt(), "both masks' forward and backward, round-robin");
            double forwardFlops = causal ? 2.0 * 100 * 101 * 16 * 3 : 4.0 * 100 * 100 * 16 * 3;
            double gflops = backward.get("gflops").asDouble();
            assertEquals(2.5 * forwardFlops / (backward.get("median_ms").asDouble() * 1e6), gflops,
                0.0005 + 0.01 * gflops, backward.toString());
            assertEquals(gflops / forward.get("gflops").asDouble(), backward.get("vs_forward").asDouble(),
                0.0006 + 0.01 * backward.get("vs_forward").asDouble(), run.out);
        }
    }

    @Test
    @DisplayName("--train: one line per length with the step times, tokens_per_s = B·L over the median step, and "
        + "the fields torch_train.py prints; --partitions spreads the rows")
    void trainingFields() throws Exception {
        CommandLineRun run = CommandLineRun.of("bench", "--train", "--embed-dim", "8", "--num-heads", "2",
            "--rows-per-step", "5", "--partitions", "3", "--seq-len", "6,7", "--repeat", "2");
        assertEquals(0, run.exitCode, run.err);
        List<JsonNode> lines = json(run);
        assertEquals(2, lines.size(), run.out);
        JsonNode line = lines.get(0);
        // torch_train.py's fields, with the same meaning
        for (String field : new String[] {"mode", "threads", "embed_dim", "num_heads", "seq_len", "rows_per_step",
            "median_step_ms", "min_step_ms", "max_step_ms", "tokens_per_s"}) {
            assertTrue(line.has(field), field + " in " + line);
        }
        for (String field : new String[] {"blas", "tile_ops", "gc", "openblas_coretype", "partitions", "master"}) {
            assertTrue(line.has(field), field + " in " + line);
        }
        assertEquals("train", line.get("mode").asText());
        assertEquals(8, line.get("embed_dim").asInt());
        assertEquals(2, line.get("num_heads").asInt());
        assertEquals(6, line.get("seq_len").asInt());
        assertEquals(7, lines.get(1).get("seq_len").asInt());
        assertEquals(5, line.get("rows_per_step").asInt());
        assertEquals(3, line.get("partitions").asInt());
        assertFalse(line.get("causal").asBoolean());
        assertTrue(line.get("threads").asInt() >= 1, line.toString());
        assertEquals(2, line.get("times_ms").size(), "one time per timed step");
        assertEquals(3, line.get("warmup_step_ms").size(), "the untimed steps");
        double median = line.get("median_step_ms").asDouble();
        assertTrue(line.get("min_step_ms").asDouble() <= median && median <= line.get("max_step_ms").asDouble(),
            line.toString());
        assertTrue(median > 0, "a step is a Spark job: " + line);
        assertEquals(5 * 6 / (median / 1e3), line.get("tokens_per_s").asDouble(), 0.1, line.toString());
        // 4 classes whatever B; the classifier's parameters: in_proj 3E×E + 3E, out_proj E×E + E, head K×E + K
        assertEquals(4, line.get("num_classes").asInt());
        assertEquals(4 * 64 + 4 * 8 + 4 * 8 + 4, line.get("parameters").asInt());
        assertTrue(Double.isFinite(line.get("loss_first").asDouble()) && Double.isFinite(line.get("loss_last").asDouble()),
            line.toString());
    }

    @Test
    @DisplayName("--backward and --train refuse the options of other modes, and --train needs its shape")
    void modeOptions() {
        assertEquals(List.of("spark-attention bench: --backward times the kernel in this JVM, not with --spark"),
            CommandLineRun.of("bench", "--backward", "--spark", "--seq-len", "64").errorLines());
        assertEquals(List.of("spark-attention bench: --train needs --embed-dim"),
            CommandLineRun.of("bench", "--train", "--seq-len", "64", "--num-heads", "2", "--rows-per-step", "4")
                .errorLines());
        assertEquals(List.of("spark-attention bench: --num-heads (3) must divide --embed-dim (8)"),
            CommandLineRun.of("bench", "--train", "--seq-len", "64", "--embed-dim", "8", "--num-heads", "3",
                "--rows-per-step", "4").errorLines());
        assertEquals(List.of("spark-attention bench: --rows-per-step must be >= 1, got 0"),
            CommandLineRun.of("bench", "--train", "--seq-len", "64", "--embed-dim", "8", "--num-heads", "2",
                "--rows-per-step", "0").errorLines());
        assertEquals(List.of("spark-attention bench: --threads is not an option of --train (it runs on the cluster's "
            + "cores: --master 'local[N]')"),
            CommandLineRun.of("bench", "--train", "--seq-len", "64", "--embed-dim", "8", "--num-heads", "2",
                "--rows-per-step", "4", "--threads", "2").errorLines());
        assertEquals(List.of("spark-attention bench: --peer: unknown peer \"ort\" for --train, expected torch"),
            CommandLineRun.of("bench", "--train", "--seq-len", "64", "--embed-dim", "8", "--num-heads", "2",
                "--rows-per-step", "4", "--peer", "ort").errorLines());
        assertEquals(List.of("spark-attention bench: --train and --spark are separate modes: give one of them"),
            CommandLineRun.of("bench", "--train", "--spark", "--seq-len", "64").errorLines());
        assertEquals(List.of("spark-attention bench: --partitions must be <= --rows-per-step (4), got 5"),
            CommandLineRun.of("bench", "--train", "--seq-len", "64", "--embed-dim", "8", "--num-heads", "2",
                "--rows-per-step", "4", "--partitions", "5").errorLines());
        assertEquals(List.of("spark-attention bench: --rows, --cache-input, --strategy, --compare-kernel and --flat "
            + "need --spark, not --train"),
            CommandLineRun.of("bench", "--train", "--seq-len", "64", "--embed-dim", "8", "--num-heads", "2",
                "--rows-per-step", "4", "--rows", "2").errorLines());
        CommandLineRun stray = CommandLineRun.of("bench", "--seq-len", "64", "--embed-dim", "8");
        assertEquals(2, stray.exitCode, stray.err);
        assertEquals(List.of("spark-attention bench: --embed-dim and --num-heads need --train or --layer"),
            stray.errorLines());
        assertEquals(List.of("spark-attention bench: --rows-per-step needs --train"),
            CommandLineRun.of("bench", "--seq-len", "64", "--rows-per-step", "8").errorLines());
    }

    private static JsonNode sparkRun(String rows, String... more) throws Exception {
        List<JsonNode> lines = sparkLines(rows, more);
        assertEquals(1, lines.size(), lines.toString());
        return lines.get(0);
    }

    private static List<JsonNode> sparkLines(String rows, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of("bench", "--spark", "--strategy", "batch", "--rows", rows,
            "--seq-len", "512", "--head-dim", "64", "--batch-heads", "2"));
        args.addAll(List.of(more));
        if (!args.contains("--repeat")) {
            args.addAll(List.of("--repeat", "1"));
        }
        CommandLineRun run = CommandLineRun.of(args.toArray(new String[0]));
        assertEquals(0, run.exitCode, run.err);
        return json(run);
    }

    private static List<JsonNode> json(CommandLineRun run) throws Exception {
        List<JsonNode> nodes = new ArrayList<>();
        for (String line : run.outLines()) {
            if (line.startsWith("{")) {
                nodes.add(JSON.readTree(line));
            }
        }
        return nodes;
    }
}

package io.sparkattention.examples.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.sparkattention.examples.cli.BenchRuns.assertError;
import static io.sparkattention.examples.cli.BenchRuns.lines;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code spark-attention bench --layer}: the whole layer's lines, their ratios, and its option checks. */
class LayerBenchCommandTest {

    /** The fields every layer line has, whoever ran it. */
    private static final String[] LAYER_FIELDS = {"mode", "seq_len", "embed_dim", "num_heads", "head_dim", "rows",
        "threads", "median_ms", "min_ms", "max_ms", "gflops", "tokens_per_s", "blas", "times_ms", "gc",
        "peak_heap_mb", "contenders", "checksum"};

    @Test
    @DisplayName("--layer: the raw layer's line, the kernel's at 1024×64 × 16 heads and ONNX Runtime's layer, with "
        + "gflops_vs_kernel and throughput_vs_ort_layer on the layer's line")
    void layerBesideTheKernelAndOrt() throws Exception {
        List<JsonNode> lines = lines("bench", "--layer", "--embed-dim", "16", "--num-heads", "4", "--seq-len", "12",
            "--rows", "3", "--threads", "2", "--repeat", "1", "--peer", "ort");
        assertEquals(3, lines.size(), lines.toString());
        JsonNode layer = lines.get(0), kernel = lines.get(1), ort = lines.get(2);
        assertEquals("layer", layer.get("mode").asText());
        assertEquals("kernel", kernel.get("mode").asText());
        assertEquals("ort_layer", ort.get("mode").asText());
        for (JsonNode line : List.of(layer, ort)) {
            for (String field : LAYER_FIELDS) {
                assertTrue(line.has(field), field + " in " + line);
            }
            assertEquals(16, line.get("embed_dim").asInt());
            assertEquals(4, line.get("num_heads").asInt());
            assertEquals(4, line.get("head_dim").asInt());
            assertEquals(12, line.get("seq_len").asInt());
            assertEquals(3, line.get("rows").asInt());
            assertEquals(2, line.get("threads").asInt());
            assertEquals(3, line.get("contenders").asInt());
            assertCounts(line);
        }
        assertEquals(1024, kernel.get("seq_len").asInt());
        assertEquals(64, kernel.get("head_dim").asInt());
        assertEquals(16, kernel.get("batch_heads").asInt());
        assertEquals(layer.get("gflops").asDouble() / kernel.get("gflops").asDouble(),
            layer.get("gflops_vs_kernel").asDouble(), 0.0006 + 0.01 * layer.get("gflops_vs_kernel").asDouble(),
            lines.toString());
        assertEquals(ort.get("median_ms").asDouble() / layer.get("median_ms").asDouble(),
            layer.get("throughput_vs_ort_layer").asDouble(), 0.0006 + 0.01 * layer.get("throughput_vs_ort_layer")
                .asDouble(), lines.toString());
        // The same rows and weights: 3·12·16 output values, each within 1e-4 of the other's.
        assertEquals(layer.get("checksum").asDouble(), ort.get("checksum").asDouble(), 3 * 12 * 16 * 1e-4,
            lines.toString());
        assertEquals("model mha_layer_h4.onnx", "model " + ort.get("model").asText());
    }

    @Test
    @DisplayName("--layer --spark --compare-kernel --peer ort: the stage's line, then the raw layer's and ONNX "
        + "Runtime's on the same rows; the stage's checksum is the raw layer's, and its ratios are their median times "
        + "over its own")
    void stageBesideTheRawLayer() throws Exception {
        List<JsonNode> lines = lines("bench", "--layer", "--spark", "--strategy", "batch", "--embed-dim", "16",
            "--num-heads", "4", "--seq-len", "40", "--rows", "4", "--partitions", "2", "--cache-input", "--repeat", "1",
            "--compare-kernel", "--peer", "ort");
        assertEquals(3, lines.size(), lines.toString());
        JsonNode stage = lines.get(0), raw = lines.get(1), ort = lines.get(2);
        assertEquals("spark_layer", stage.get("mode").asText());
        assertEquals("layer", raw.get("mode").asText());
        assertEquals("ort_layer", ort.get("mode").asText());
        for (JsonNode line : lines) {
            for (String field : LAYER_FIELDS) {
                assertTrue(line.has(field), field + " in " + line);
            }
            assertEquals(4, line.get("rows").asInt());
            assertEquals(Runtime.getRuntime().availableProcessors(), line.get("threads").asInt(),
                "the local master's cores: " + line);
            assertCounts(line);
        }
        for (String field : new String[] {"partitions", "cached_input", "strategy", "resolved_strategy", "master",
            "warmup_ms", "warmup_settled", "jit_ms"}) {
            assertTrue(stage.has(field), field + " in " + stage);
        }
        assertEquals(2, stage.get("partitions").asInt());
        assertTrue(stage.get("cached_input").asBoolean());
        assertEquals("batch", stage.get("resolved_strategy").asText());
        double sum = raw.get("checksum").asDouble();
        assertTrue(Double.isFinite(sum) && sum != 0, raw.toString());
        // The same rows, weights and kernel: equal outputs; only the order of the partitions' sums may differ.
        assertEquals(sum, stage.get("checksum").asDouble(), 1e-12 * Math.abs(sum) + 1e-12, lines.toString());
        assertEquals(sum, ort.get("checksum").asDouble(), 4 * 40 * 16 * 1e-4, lines.toString());
        assertEquals(raw.get("median_ms").asDouble() / stage.get("median_ms").asDouble(),
            stage.get("throughput_vs_raw_layer").asDouble(), 0.0006 + 0.001 * stage.get("throughput_vs_raw_layer")
                .asDouble(), lines.toString());
        assertEquals(ort.get("median_ms").asDouble() / stage.get("median_ms").asDouble(),
            stage.get("throughput_vs_ort_layer").asDouble(), 0.0006 + 0.001 * stage.get("throughput_vs_ort_layer")
                .asDouble(), lines.toString());
    }

    @Test
    @DisplayName("--layer's options: its shape is --embed-dim and --num-heads, other modes' options are refused, and "
        + "every error is one line naming the option")
    void layerOptions() {
        assertError("--layer needs --embed-dim", "bench", "--layer", "--seq-len", "8", "--num-heads", "2");
        assertError("--layer needs --num-heads", "bench", "--layer", "--seq-len", "8", "--embed-dim", "8");
        assertError("--num-heads (3) must divide --embed-dim (8)", "bench", "--layer", "--seq-len", "8",
            "--embed-dim", "8", "--num-heads", "3");
        assertError("--head-dim is not an option of --layer (it takes --embed-dim and --num-heads)", "bench",
            "--layer", "--seq-len", "8", "--embed-dim", "8", "--num-heads", "2", "--head-dim", "4");
        assertError("--train is not an option of --layer (it takes --embed-dim and --num-heads)", "bench",
            "--layer", "--train", "--seq-len", "8", "--embed-dim", "8", "--num-heads", "2");
        assertError("--rows must be >= 1, got 0", "bench", "--layer", "--seq-len", "8", "--embed-dim", "8",
            "--num-heads", "2", "--rows", "0");
        assertError("--peer: unknown peer \"fma\" for --layer, expected ort", "bench", "--layer", "--seq-len", "8",
            "--embed-dim", "8", "--num-heads", "2", "--peer", "fma");
        assertError("--peer ort with --layer needs --num-heads 1, 2, 4, 8, 12 or 16 (the bundled mha_layer_h*.onnx), "
            + "got 3", "bench", "--layer", "--seq-len", "8", "--embed-dim", "9", "--num-heads", "3", "--peer", "ort");
        assertError("--partitions, --cache-input, --master, --strategy, --compare-kernel and --flat need --spark",
            "bench", "--layer", "--seq-len", "8", "--embed-dim", "8", "--num-heads", "2", "--cache-input");
        assertError("--threads is not an option of --spark (it runs on the cluster's cores: --master 'local[N]')",
            "bench", "--layer", "--spark", "--seq-len", "8", "--embed-dim", "8", "--num-heads", "2", "--threads", "2");
        assertError("--partitions must be <= --rows (2), got 3", "bench", "--layer", "--spark", "--seq-len", "8",
            "--embed-dim", "8", "--num-heads", "2", "--rows", "2", "--partitions", "3");
        assertError("--compare-kernel needs a local master (it runs in this JVM), got spark://127.0.0.1:1", "bench",
            "--layer", "--spark", "--seq-len", "8", "--embed-dim", "8", "--num-heads", "2", "--compare-kernel",
            "--master", "spark://127.0.0.1:1");
        assertError("--peer ort needs a local master (it runs in this JVM), got spark://127.0.0.1:1", "bench",
            "--layer", "--spark", "--seq-len", "8", "--embed-dim", "8", "--num-heads", "2", "--peer", "ort",
            "--master", "spark://127.0.0.1:1");
    }

    /** gflops counts 8·L·E² + 4·L²·E per row over the median; tokens_per_s is R·L over it. */
    private static void assertCounts(JsonNode line) {
        double l = line.get("seq_len").asDouble(), e = line.get("embed_dim").asDouble();
        double rows = line.get("rows").asDouble(), median = line.get("median_ms").asDouble();
        double gflops = rows * (8 * l * e * e + 4 * l * l * e) / (median * 1e6);
        assertEquals(gflops, line.get("gflops").asDouble(), 0.0005 + 0.01 * gflops, line.toString());
        double tokens = rows * l / (median / 1e3);
        assertEquals(tokens, line.get("tokens_per_s").asDouble(), 0.05 + 0.01 * tokens, line.toString());
        assertTrue(Double.isFinite(line.get("checksum").asDouble()), line.toString());
        assertEquals(line.get("repeat").asInt(), line.get("times_ms").size(), line.toString());
    }
}

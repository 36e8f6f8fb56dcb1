package io.sparkattention.examples.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code spark-attention bench --gemm}: the projections' kernels side by side, one JSON line per (shape, kernel). */
class BenchGemmTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    @DisplayName("--gemm MxNxK: the BLAS line, then the Vector API kernel's with vs_blas; gflops counts 2·m·n·k per "
        + "product, over the wall time and, as gflops_thread_cpu, over the threads' own CPU time")
    void linesPerShapeAndKernel() throws Exception {
        CommandLineRun run = CommandLineRun.of("bench", "--gemm", "7x33x20", "--repeat", "3");
        assertEquals(0, run.exitCode, run.err);
        List<JsonNode> lines = new ArrayList<>();
        for (String line : run.outLines()) {
            if (line.startsWith("{")) {
                lines.add(JSON.readTree(line));
            }
        }
        assertEquals(2, lines.size(), run.out);
        JsonNode blas = lines.get(0), vector = lines.get(1);
        assertEquals("gemm", blas.get("mode").asText());
        assertTrue(blas.get("kernel").asText().startsWith("blas:"), blas.toString());
        assertTrue(vector.get("kernel").asText().startsWith("vector:"), vector.toString());
        assertEquals(7, vector.get("m").asInt());
        assertEquals(33, vector.get("n").asInt());
        assertEquals(20, vector.get("k").asInt());
        double median = vector.get("median_ms").asDouble();
        assertEquals(2.0 * 7 * 33 * 20 * vector.get("products").asInt() / (median * 1e6),
            vector.get("gflops").asDouble(), 0.01 * vector.get("gflops").asDouble(), run.out);
        assertEquals(blas.get("median_ms").asDouble() / median, vector.get("vs_blas").asDouble(), 0.01, run.out);
        double cpu = vector.get("median_thread_cpu_ms").asDouble();
        assertTrue(cpu > 0 && cpu <= median * 1.05 + 1, run.out);
        assertEquals(2.0 * 7 * 33 * 20 * vector.get("products").asInt() / (cpu * 1e6),
            vector.get("gflops_thread_cpu").asDouble(), 0.01 * vector.get("gflops_thread_cpu").asDouble(), run.out);
    }

    @Test
    @DisplayName("--gemm --peer fma --threads 2 --gemm-products: per shape and product the kernels' lines, then the FMA "
        + "loop's on the same threads; gflops counts 2·m·n·k per product and thread, fraction_of_fma is it over the "
        + "loop's")
    void productsBesideTheLoop() throws Exception {
        CommandLineRun run = CommandLineRun.of("bench", "--gemm", "13x40x24", "--repeat", "3", "--threads", "2",
            "--peer", "fma", "--gemm-products", "forward,transposed,weight-gradient");
        assertEquals(0, run.exitCode, run.err);
        List<JsonNode> lines = new ArrayList<>();
        for (String line : run.outLines()) {
            if (line.startsWith("{")) {
                lines.add(JSON.readTree(line));
            }
        }
        assertEquals(9, lines.size(), run.out);
        String[] products = {"forward", "transposed", "weight-gradient"};
        for (int p = 0; p < 3; p++) {
            JsonNode fma = lines.get(3 * p + 2);
            assertEquals("fma", fma.get("mode").asText());
            assertEquals(2, fma.get("threads").asInt());
            for (JsonNode kernel : lines.subList(3 * p, 3 * p + 2)) {
                assertEquals(products[p], kernel.get("product").asText());
                assertEquals(2, kernel.get("threads").asInt());
                assertEquals(3, kernel.get("contenders").asInt());
                double gflops = kernel.get("gflops").asDouble();
                assertEquals(2.0 * 13 * 40 * 24 * kernel.get("products").asInt() * 2
                    / (kernel.get("median_ms").asDouble() * 1e6), gflops, 0.01 * gflops, kernel.toString());
                assertEquals(gflops / fma.get("gflops").asDouble(), kernel.get("fraction_of_fma").asDouble(),
                    0.0006 + 0.001 * kernel.get("fraction_of_fma").asDouble(), kernel.toString());
            }
        }
    }

    @Test
    @DisplayName("an unknown product or peer of --gemm ends with exit code 2 and one line naming it")
    void badProductOrPeer() {
        CommandLineRun product = CommandLineRun.of("bench", "--gemm", "8x8x8", "--gemm-products", "backward");
        assertEquals(2, product.exitCode, product.err);
        assertEquals(List.of("spark-attention bench: --gemm-products: unknown product \"backward\", expected forward, "
            + "transposed or weight-gradient"), product.errorLines());
        CommandLineRun peer = CommandLineRun.of("bench", "--gemm", "8x8x8", "--peer", "ort");
        assertEquals(2, peer.exitCode, peer.err);
        assertEquals(List.of("spark-attention bench: --peer: unknown peer \"ort\" for --gemm, expected fma"),
            peer.errorLines());
    }

    @Test
    @DisplayName("a shape that is not MxNxK with positive sizes ends with exit code 2 and one line naming it")
    void badShape() {
        CommandLineRun run = CommandLineRun.of("bench", "--gemm", "128x768");
        assertEquals(2, run.exitCode, run.err);
        assertEquals(List.of("spark-attention bench: --gemm: shape \"128x768\": expected MxNxK with positive sizes"),
            run.errorLines());
    }
}

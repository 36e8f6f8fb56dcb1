package io.sparkattention.examples.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sparkattention.kernel.Blas;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BenchResultTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final double FLOPS = BenchResult.flops(256, 64, 4, false);

    private static JsonNode line(BenchResult result) throws Exception {
        return JSON.readTree(result.toJson());
    }

    private static BenchResult result() {
        return new BenchResult("kernel", 256, 64, 4, false, 2, new double[] {3, 1, 2}, FLOPS, "JNIBLAS");
    }

    @Test
    @DisplayName("the line names the OpenBLAS core type asked for when a native BLAS is loaded, null otherwise")
    void coreType() throws Exception {
        JsonNode field = line(result()).get("openblas_coretype");
        if (Blas.isNative()) {
            assertEquals(Blas.coreType(), field.asText());
        } else {
            assertTrue(field.isNull(), field.toString());
        }
    }

    @Test
    @DisplayName("CPU time: median and GFLOP/s per busy core from the repetitions' CPU times")
    void cpuTimes() throws Exception {
        JsonNode node = line(result().withCpuTimes(new double[] {400, 600, 500}, FLOPS));
        assertEquals(500.0, node.get("median_cpu_ms").asDouble());
        assertEquals(FLOPS / 500e6, node.get("gflops_cpu").asDouble(), 1e-3);
    }

    @Test
    @DisplayName("CPU time under ten 10 ms clock ticks is reported as unknown, not as 0 ms and infinite GFLOP/s")
    void cpuTimeBelowResolution() throws Exception {
        JsonNode node = line(result().withCpuTimes(new double[] {0, 10, 0}, FLOPS));
        assertTrue(node.get("median_cpu_ms").isNull(), node.toString());
        node = line(result().withCpuTimes(new double[] {90, 90, 100}, FLOPS));
        assertTrue(node.get("median_cpu_ms").isNull(), node.toString());
        assertTrue(node.get("gflops_cpu").isNull(), node.toString());
    }

    @Test
    @DisplayName("a training line: median, min and max of the step times, and tokens_per_s = B·L over the median step")
    void training() throws Exception {
        JsonNode node = line(BenchResult.training(64, 4, 100, 256, false, 2, new double[] {200, 160, 180, 900}, "JNIBLAS"));
        assertEquals("train", node.get("mode").asText());
        assertEquals(64, node.get("embed_dim").asInt());
        assertEquals(4, node.get("num_heads").asInt());
        assertEquals(100, node.get("seq_len").asInt());
        assertEquals(256, node.get("rows_per_step").asInt());
        assertEquals(190.0, node.get("median_step_ms").asDouble());
        assertEquals(160.0, node.get("min_step_ms").asDouble());
        assertEquals(900.0, node.get("max_step_ms").asDouble());
        assertEquals(134736.8, node.get("tokens_per_s").asDouble(), 0.0, "25,600 tokens in 0.19 s");
        assertEquals(4, node.get("times_ms").size());
        assertTrue(node.has("gc") && node.has("openblas_coretype"), node.toString());
    }

    @Test
    @DisplayName("a training line whose median step is under the clock's millisecond has no tokens_per_s")
    void trainingBelowClockResolution() throws Exception {
        JsonNode node = line(BenchResult.training(8, 2, 6, 5, false, 2, new double[] {0, 0, 1}, "JNIBLAS"));
        assertTrue(node.get("tokens_per_s").isNull(), node.toString());
    }
}

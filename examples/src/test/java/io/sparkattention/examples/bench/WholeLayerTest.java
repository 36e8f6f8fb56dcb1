package io.sparkattention.examples.bench;

import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.RowMask;
import io.sparkattention.kernel.Workspace;
import io.sparkattention.nn.MultiHeadAttentionLayer;
import io.sparkattention.nn.MultiHeadAttentionWeights;
import io.sparkattention.nn.AttentionWeightsMode;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The whole-layer contenders compute the same layer on the same rows: ONNX Runtime's graph and the raw layer. */
class WholeLayerTest {

    @Test
    @DisplayName("ONNX Runtime's whole-layer graph gives the raw layer's output within 1e-4 (E = 32, 4 heads, 3 rows "
        + "of 10 tokens, random biases)")
    void ortLayerMatchesTheRawLayer() {
        int e = 32, h = 4, l = 10, rows = 3;
        MultiHeadAttentionWeights w = RandomLayer.weights(e, h);
        MultiHeadAttentionLayer layer = new MultiHeadAttentionLayer(w, new FlashAttention(AttentionSpec.defaults()));
        float[][] x = RandomLayer.rows(rows, l, e);
        float[] packed = new float[rows * l * e];
        for (int r = 0; r < rows; r++) {
            System.arraycopy(x[r], 0, packed, r * l * e, l * e);
        }
        float[] y;
        try (OrtLayer ort = new OrtLayer(w, 2)) {
            y = ort.forward(packed, rows, l);
        }
        assertEquals(rows * l * e, y.length);
        Workspace ws = new Workspace();
        double worst = 0, largest = 0;
        for (int r = 0; r < rows; r++) {
            float[] ref = layer.forward(x[r], l, x[r], x[r], l, RowMask.NONE, AttentionWeightsMode.NONE, ws).values();
            for (int i = 0; i < ref.length; i++) {
                worst = Math.max(worst, Math.abs(ref[i] - y[r * l * e + i]));
                largest = Math.max(largest, Math.abs(ref[i]));
            }
        }
        assertTrue(largest > 0.1, "a non-trivial output: max |y| = " + largest);
        assertTrue(worst <= 1e-4 * Math.max(1, largest), "max abs difference " + worst);
    }

    @Test
    @DisplayName("the random layer's weights are PyTorch's shapes with non-zero biases, the same for the same shape")
    void randomLayerIsSeeded() {
        MultiHeadAttentionWeights a = RandomLayer.weights(24, 3), b = RandomLayer.weights(24, 3);
        assertEquals(24 * 24, a.qWeight().length);
        assertEquals(3, a.numHeads());
        assertEquals(a.outBias()[5], b.outBias()[5]);
        assertNotEquals(0f, a.qBias()[0]);
        double bound = 1 / Math.sqrt(24);
        for (float v : a.kWeight()) {
            assertTrue(Math.abs(v) <= bound, "within ±1/√E: " + v);
        }
        assertThrows(IllegalArgumentException.class, () -> RandomLayer.weights(10, 4));
    }

    @Test
    @DisplayName("the driver's rows are the executors' rows: row i is RandomMatrix's matrix for id i")
    void driverRowsAreTheGeneratedRows() {
        float[][] x = RandomLayer.rows(2, 3, 5);
        SplittableRandom random = RandomMatrix.random(SparkBenchmark.SEED, 1);
        for (int i = 0; i < 15; i++) {
            assertEquals((float) (random.nextDouble() * 2 - 1), x[1][i]);
        }
    }

    @Test
    @DisplayName("the raw layer's checksum is the sum over rows of each output's checksum, whatever the threads")
    void rawLayerChecksum() {
        int e = 16, l = 7;
        MultiHeadAttentionWeights w = RandomLayer.weights(e, 2);
        MultiHeadAttentionLayer layer = new MultiHeadAttentionLayer(w, new FlashAttention(AttentionSpec.defaults()));
        float[][] x = RandomLayer.rows(5, l, e);
        double expected = 0;
        for (float[] row : x) {
            float[] y = layer.forward(row, l, row, row, l, RowMask.NONE, AttentionWeightsMode.NONE, new Workspace()).values();
            double plain = 0;
            for (float v : y) {
                plain += v;
            }
            double ordered = OutputChecksum.of(y, e);
            assertEquals(plain, ordered, 1e-9 * Math.max(1, Math.abs(plain)));
            expected += ordered;
        }
        try (RawLayerTrial one = new RawLayerTrial(layer, x, l, 1); RawLayerTrial three = new RawLayerTrial(layer, x, l, 3)) {
            assertEquals(expected, one.checksum(), 0.0);
            assertEquals(expected, three.checksum(), 0.0, "each row's checksum has its place");
        }
    }

    @Test
    @DisplayName("a layer line counts 8·L·E² + 4·L²·E per row and R·L tokens over the median")
    void layerLineCountsProjectionsAndAttention() {
        assertEquals(3 * (8.0 * 10 * 32 * 32 + 4.0 * 10 * 10 * 32), BenchResult.layerFlops(10, 32, 3), 0.0);
        BenchResult line = BenchResult.layer("layer", 128, 768, 12, 512, 2, new double[] {2000, 1000, 3000}, "blas");
        double flops = 512 * (8.0 * 128 * 768 * 768 + 4.0 * 128 * 128 * 768);
        assertEquals(flops / 2e9, line.gflops(), 0.001, "over the median, 2 s");
        assertTrue(line.toJson().contains("\"tokens_per_s\":32768.0"), line.toJson());
        assertTrue(line.toJson().contains("\"head_dim\":64"), line.toJson());
    }
}

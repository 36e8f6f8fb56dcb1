package io.sparkattention.nn;

import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.Gemm;
import io.sparkattention.kernel.MatrixView;
import io.sparkattention.kernel.RowMask;
import io.sparkattention.kernel.Workspace;
import io.sparkattention.testing.RandomTensors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

class MultiHeadAttentionLayerTest {

    @Test
    @DisplayName("the layer's projections on its once-prepared weights give Gemm.linear's bits, before and after "
        + "serialization, which prepares them again")
    void preparedProjections() throws IOException, ClassNotFoundException {
        RandomTensors rnd = new RandomTensors(41);
        int E = 48, heads = 4, kvHeads = 2, kvDim = kvHeads * (E / heads), kdim = 20, vdim = 13, L = 11, S = 7;
        MultiHeadAttentionWeights w = new MultiHeadAttentionWeights(E, heads, kvHeads, kdim, vdim,
            rnd.normal(E * E, 0.2), rnd.normal(kvDim * kdim, 0.2), rnd.normal(kvDim * vdim, 0.2),
            rnd.normal(E, 0.1), null, rnd.normal(kvDim, 0.1), rnd.normal(E * E, 0.2), rnd.normal(E, 0.1));
        MultiHeadAttentionLayer layer = new MultiHeadAttentionLayer(w, new FlashAttention(AttentionSpec.defaults()));
        float[] query = rnd.normal(L * E, 1), key = rnd.normal(S * kdim, 1), value = rnd.normal(S * vdim, 1);

        PreparedSequence p = layer.prepare(query, L, key, value, S, RowMask.NONE);
        assertArrayEquals(Gemm.linear(query, L, E, w.qWeight(), E, w.qBias()), p.q().data());
        assertArrayEquals(Gemm.linear(key, S, kdim, w.kWeight(), kvDim, null), p.k().data());
        assertArrayEquals(Gemm.linear(value, S, vdim, w.vWeight(), kvDim, w.vBias()), p.v().data());
        float[] attended = rnd.normal(L * E, 1);
        assertArrayEquals(Gemm.linear(attended, L, E, w.outWeight(), E, w.outBias()), layer.finish(attended, L));

        float[] before = layer.forward(query, L, key, value, S, RowMask.NONE, AttentionWeightsMode.NONE, new Workspace())
            .values();
        MultiHeadAttentionLayer copy = roundTrip(layer);
        assertArrayEquals(before,
            copy.forward(query, L, key, value, S, RowMask.NONE, AttentionWeightsMode.NONE, new Workspace()).values());
    }

    @Test
    @DisplayName("self-attention on a fusable layer projects once into [q | k | v], read through views of that "
        + "one array, and attends as the three separate projections do")
    void fusedSelfAttention() {
        RandomTensors rnd = new RandomTensors(43);
        int E = 24, heads = 6, kvHeads = 2, kvDim = kvHeads * (E / heads), F = E + 2 * kvDim;
        MultiHeadAttentionWeights w = new MultiHeadAttentionWeights(E, heads, kvHeads, E, E,
            rnd.normal(E * E, 0.2), rnd.normal(kvDim * E, 0.2), rnd.normal(kvDim * E, 0.2),
            rnd.normal(E, 0.1), rnd.normal(kvDim, 0.1), null, rnd.normal(E * E, 0.2), rnd.normal(E, 0.1));
        MultiHeadAttentionLayer layer = new MultiHeadAttentionLayer(w, new FlashAttention(AttentionSpec.defaults()));
        for (int L : new int[] {0, 1, 13, 150}) {
            float[] x = rnd.normal(L * E, 1);
            PreparedSequence p = layer.prepare(x, L, x, x, L, RowMask.NONE);
            assertSame(p.q().data(), p.k().data());
            assertSame(p.q().data(), p.v().data());
            assertEquals(List.of(0, E, E + kvDim), List.of(p.q().offset(), p.k().offset(), p.v().offset()));
            assertEquals(List.of(F, F, F), List.of(p.q().ld(), p.k().ld(), p.v().ld()));
            assertColumns(Gemm.linear(x, L, E, w.qWeight(), E, w.qBias()), p.q(), L, E);
            assertColumns(Gemm.linear(x, L, E, w.kWeight(), kvDim, w.kBias()), p.k(), L, kvDim);
            assertColumns(Gemm.linear(x, L, E, w.vWeight(), kvDim, null), p.v(), L, kvDim);

            float[] fused = layer.forward(x, L, x, x, L, RowMask.NONE, AttentionWeightsMode.PER_HEAD,
                new Workspace()).values();
            Attention.Output separate = layer.forward(x, L, x.clone(), x.clone(), L, RowMask.NONE,
                AttentionWeightsMode.PER_HEAD, new Workspace());
            assertEquals(L * E, fused.length);
            for (int i = 0; i < fused.length; i++) {
                assertEquals(separate.values()[i], fused[i], 1e-5 * (1 + Math.abs(separate.values()[i])), "L " + L);
            }
        }
    }

    /** Each of {@code rows}×{@code cols} values of the view within 1e-5 of {@code expected}'s (dense). */
    private static void assertColumns(float[] expected, MatrixView view, int rows, int cols) {
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                float e = expected[r * cols + c];
                assertEquals(e, view.data()[view.offset() + r * view.ld() + c], 1e-5 * (1 + Math.abs(e)),
                    "row " + r + ", column " + c);
            }
        }
    }

    private static MultiHeadAttentionLayer roundTrip(MultiHeadAttentionLayer layer)
        throws IOException, ClassNotFoundException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(layer);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            return (MultiHeadAttentionLayer) in.readObject();
        }
    }
}

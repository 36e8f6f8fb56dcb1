package io.sparkattention.nn;

import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.Gemm;
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

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

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
        assertArrayEquals(Gemm.linear(query, L, E, w.qWeight(), E, w.qBias()), p.q());
        assertArrayEquals(Gemm.linear(key, S, kdim, w.kWeight(), kvDim, null), p.k());
        assertArrayEquals(Gemm.linear(value, S, vdim, w.vWeight(), kvDim, w.vBias()), p.v());
        float[] attended = rnd.normal(L * E, 1);
        assertArrayEquals(Gemm.linear(attended, L, E, w.outWeight(), E, w.outBias()), layer.finish(attended, L));

        float[] before = layer.forward(query, L, key, value, S, RowMask.NONE, AttentionWeightsMode.NONE, new Workspace())
            .values();
        MultiHeadAttentionLayer copy = roundTrip(layer);
        assertArrayEquals(before,
            copy.forward(query, L, key, value, S, RowMask.NONE, AttentionWeightsMode.NONE, new Workspace()).values());
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

package io.sparkattention.kernel;

import io.sparkattention.testing.RandomTensors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;


import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Beyond the reference: NaN stays in its query row, a kernel travels as its spec, wrong sizes are refused by name. */
class FlashAttentionContractTest {

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.sparkattention.kernel.TileOpsImplementations#all")
    @DisplayName("NaN in one query row of a wide strip reaches that row only, also with a scale of 0")
    void nanPropagatesOnEveryPath(TileOps ops) {
        int n = 300, d = 16;
        AttentionShape shape = AttentionShape.self(n, 1, d);
        RandomTensors rnd = new RandomTensors(5);
        float[] q = rnd.normal(shape.querySize(), 1), k = rnd.normal(shape.keySize(), 1);
        float[] v = rnd.normal(shape.valueSize(), 1);
        q[37 * d + 3] = Float.NaN;
        for (float scale : new float[] {Float.NaN, 0f}) {  // NaN: the default 1/sqrt(d)
            float[] out = new float[shape.outputSize()];
            new FlashAttention(AttentionSpec.defaults().withScale(scale), ops)
                .forward(shape, q, k, v, RowMask.NONE, out, null);
            for (int i = 0; i < n; i++) {
                for (int t = 0; t < d; t++) {
                    assertEquals(i == 37, Float.isNaN(out[i * d + t]), "scale " + scale + ", row " + i);
                }
            }
        }
    }

    @Test
    @DisplayName("NaN in one query row propagates to that row only")
    void nanPropagatesToItsRow() {
        RandomTensors rnd = new RandomTensors(3);
        AttentionShape shape = AttentionShape.self(5, 1, 4);
        float[] q = rnd.normal(20, 1);
        q[2 * 4 + 1] = Float.NaN;
        float[] out = new float[20];
        new FlashAttention(AttentionSpec.defaults()).forward(shape, q, rnd.normal(20, 1), rnd.normal(20, 1),
            RowMask.NONE, out, null);
        for (int i = 0; i < 5; i++) {
            for (int t = 0; t < 4; t++) {
                assertEquals(i == 2, Float.isNaN(out[i * 4 + t]), "row " + i);
            }
        }
    }

    @Test
    @DisplayName("a kernel travels as its spec and is rebuilt with the receiving JVM's tile implementation")
    void serializesAsItsSpec() throws Exception {
        AttentionSpec spec = AttentionSpec.defaults().withCausal(true).withBlocks(16, 32).withScale(0.25f);
        FlashAttention sent = new FlashAttention(spec, new CountingOps(TileOps.get()));
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
            out.writeObject(sent);
        }
        FlashAttention received;
        try (java.io.ObjectInputStream in = new java.io.ObjectInputStream(
            new java.io.ByteArrayInputStream(bytes.toByteArray()))) {
            received = (FlashAttention) in.readObject();
        }
        assertEquals(spec, received.spec());
        assertEquals(TileOps.get().name(), received.ops().name());
    }

    @Test
    @DisplayName("wrong sizes are rejected with a message naming the input")
    void checksArguments() {
        FlashAttention kernel = new FlashAttention(AttentionSpec.defaults());
        AttentionShape shape = AttentionShape.self(4, 2, 8);
        float[] x = new float[64];
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> kernel.forward(shape, new float[63], x, x, RowMask.NONE, new float[64], null));
        assertTrue(e.getMessage().startsWith("query has 63 values"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
            () -> kernel.forward(shape, x, x, x, RowMask.keyLength(5), new float[64], null));
        assertTrue(e.getMessage().contains("key length 5"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
            () -> kernel.forward(shape, x, x, x, RowMask.NONE.withBias(new float[15]), new float[64], null));
        assertTrue(e.getMessage().contains("additive bias has 15 values"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new AttentionShape(4, 4, 6, 4, 8, 8));
        assertThrows(IllegalArgumentException.class, () -> AttentionSpec.defaults().withBlocks(-1, 8));
        assertThrows(IllegalArgumentException.class,
            () -> AttentionSpec.defaults().withBlocks(8, AttentionSpec.MAX_BLOCK + 1));
        assertThrows(IllegalArgumentException.class, () -> AttentionSpec.defaults().withWindow(-2, 0));
    }
}

package io.sparkattention.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every PyTorch fixture opens, every tensor in it reads, and every shape agrees with the case's
 * {@code __metadata__.config}; a few values agree with what numpy reads from the same bytes.
 */
class SafeTensorsFixturesTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    static Stream<String> fixtures() {
        return Fixtures.ALL.stream();
    }

    static Stream<String> mhaFixtures() {
        return Fixtures.ALL.stream().filter(n -> n.startsWith("mha_"));
    }

    static Stream<String> sdpaFixtures() {
        return Fixtures.ALL.stream().filter(n -> n.startsWith("sdpa_"));
    }

    private static JsonNode config(SafeTensors st) throws Exception {
        return JSON.readTree(st.metadata().get("config"));
    }

    @Test
    void theListOfFixturesIsComplete() throws Exception {
        try (Stream<Path> files = Files.list(Fixtures.path("mha_self_basic").getParent())) {
            List<String> names = files.map(p -> p.getFileName().toString())
                .filter(n -> n.endsWith(".safetensors"))
                .map(n -> n.substring(0, n.length() - ".safetensors".length()))
                .sorted()
                .collect(Collectors.toList());
            assertEquals(Fixtures.ALL, names);
        }
    }

    @ParameterizedTest
    @MethodSource("fixtures")
    void everyTensorOfEveryFixtureReads(String name) throws Exception {
        SafeTensors st = SafeTensors.read(Fixtures.path(name));
        assertTrue(st.metadata().containsKey("config"), name);
        for (String t : st.names()) {
            long n = st.elementCount(t);
            switch (st.dtype(t)) {
                case F32:
                case F64:
                    assertEquals(n, st.floats(t).length, t);
                    assertEquals(n, st.doubles(t).length, t);
                    break;
                case I64:
                    assertEquals(n, st.longs(t).length, t);
                    break;
                case BOOL:
                    assertEquals(n, st.booleans(t).length, t);
                    break;
                default:
                    throw new AssertionError(name + ": unexpected dtype " + st.dtype(t) + " of " + t);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("mhaFixtures")
    void multiheadAttentionShapesMatchTheirConfig(String name) throws Exception {
        SafeTensors st = SafeTensors.read(Fixtures.path(name));
        JsonNode c = config(st);
        assertEquals("multihead_attention", c.get("kind").asText());
        long e = c.get("embed_dim").asLong();
        long h = c.get("num_heads").asLong();
        long kdim = c.get("kdim").asLong();
        long vdim = c.get("vdim").asLong();
        boolean bias = c.get("bias").asBoolean();
        assertEquals(0, e % h, "num_heads divides embed_dim");

        long[] query = st.shape("input.query");
        assertEquals(3, query.length);
        long b = query[0];
        long l = query[1];
        assertEquals(e, query[2]);
        long s = l;
        if (c.get("self_attention").asBoolean()) {
            assertFalse(st.has("input.key"));
            assertFalse(st.has("input.value"));
        } else {
            s = st.shape("input.key")[1];
            assertArrayEquals(new long[] {b, s, kdim}, st.shape("input.key"));
            assertArrayEquals(new long[] {b, s, vdim}, st.shape("input.value"));
        }
        assertArrayEquals(new long[] {b, l, e}, st.shape("expected.attn_output"));
        if (st.has("expected.attn_weights")) {
            long[] weights = c.get("average_attn_weights").asBoolean() ? new long[] {b, l, s} : new long[] {b, h, l, s};
            assertArrayEquals(weights, st.shape("expected.attn_weights"));
        }
        if (c.get("float_attn_mask").asBoolean()) {
            assertArrayEquals(new long[] {b * h, l, s}, st.shape("input.attn_mask"));
        }

        if (kdim == e && vdim == e) {
            assertArrayEquals(new long[] {3 * e, e}, st.shape("state_dict.in_proj_weight"));
            assertFalse(st.has("state_dict.q_proj_weight"));
        } else {
            assertFalse(st.has("state_dict.in_proj_weight"));
            assertArrayEquals(new long[] {e, e}, st.shape("state_dict.q_proj_weight"));
            assertArrayEquals(new long[] {e, kdim}, st.shape("state_dict.k_proj_weight"));
            assertArrayEquals(new long[] {e, vdim}, st.shape("state_dict.v_proj_weight"));
        }
        assertArrayEquals(new long[] {e, e}, st.shape("state_dict.out_proj.weight"));
        assertEquals(bias, st.has("state_dict.in_proj_bias"));
        assertEquals(bias, st.has("state_dict.out_proj.bias"));
        if (bias) {
            assertArrayEquals(new long[] {3 * e}, st.shape("state_dict.in_proj_bias"));
            assertArrayEquals(new long[] {e}, st.shape("state_dict.out_proj.bias"));
        }

        JsonNode lengths = c.get("lengths");
        if (!lengths.isNull()) {
            long[] expected = new long[lengths.size()];
            for (int i = 0; i < expected.length; i++) {
                expected[i] = lengths.get(i).asLong();
            }
            assertArrayEquals(expected, st.longs("input.lengths"));
            assertArrayEquals(new long[] {b, s}, st.shape("input.key_padding_mask"));
            boolean[] padding = st.booleans("input.key_padding_mask");
            int[] fromMask = PyTorchMasks.keyLengthsFromPaddingMask(padding, (int) b, (int) s);
            assertArrayEquals(st.ints("input.lengths"), fromMask, "the padding mask is the lengths' suffix mask");
        }
    }

    @ParameterizedTest
    @MethodSource("sdpaFixtures")
    void scaledDotProductShapesMatchTheirConfig(String name) throws Exception {
        SafeTensors st = SafeTensors.read(Fixtures.path(name));
        JsonNode c = config(st);
        assertEquals("scaled_dot_product_attention", c.get("kind").asText());
        long[] q = st.shape("input.query");
        long[] k = st.shape("input.key");
        long[] v = st.shape("input.value");
        long bh = q[0];
        long l = q[1];
        long d = q[2];
        long s = k[1];
        assertArrayEquals(new long[] {bh, s, d}, k);
        assertEquals(bh, v[0]);
        assertEquals(s, v[1]);
        assertEquals(1 / Math.sqrt(d), c.get("scale").asDouble(), 1e-15);
        assertEquals(DType.F64, st.dtype("expected.output"));
        assertArrayEquals(new long[] {bh, l, v[2]}, st.shape("expected.output"));
        if (st.has("expected.attention_weights")) {
            assertArrayEquals(new long[] {bh, l, s}, st.shape("expected.attention_weights"));
            double[] w = st.doubles("expected.attention_weights");
            for (int row = 0; row < bh * l; row++) {
                double sum = 0;
                for (int j = 0; j < s; j++) {
                    sum += w[(int) (row * s + j)];
                }
                assertEquals(1.0, sum, 1e-12, "softmax row " + row + " sums to one");
            }
        }
    }

    /** Values printed by numpy's {@code frombuffer} on the same files. */
    @Test
    void valuesAgreeWithNumpy() throws Exception {
        SafeTensors basic = SafeTensors.read(Fixtures.path("mha_self_basic"));
        float[] w = basic.floats("state_dict.in_proj_weight");
        assertEquals(0.07282882183790207f, w[0]);
        assertEquals(-0.11835021525621414f, w[16 * 16]);
        assertEquals(0.037937477231025696f, w[47 * 16 + 15]);
        float[] b = basic.floats("state_dict.in_proj_bias");
        assertEquals(-0.04766366258263588f, b[0]);
        assertEquals(0.1404682993888855f, b[16]);
        assertEquals(0.0521506741642952f, b[47]);
        double sum = 0;
        for (double x : basic.doubles("state_dict.in_proj_weight")) {
            sum += x;
        }
        assertEquals(-3.6360822541173548, sum, 1e-12);

        double[] out = SafeTensors.read(Fixtures.path("sdpa_seed_plain")).doubles("expected.output");
        assertEquals(0.37326754901284703, out[0], 0.0);
        assertEquals(0.0542055635251255, out[out.length - 1], 0.0);

        SafeTensors padding = SafeTensors.read(Fixtures.path("mha_key_padding"));
        assertArrayEquals(new long[] {10, 7, 3, 1}, padding.longs("input.lengths"));
        boolean[] mask = padding.booleans("input.key_padding_mask");
        assertFalse(mask[1 * 10 + 6]);
        assertTrue(mask[1 * 10 + 7]);
        assertTrue(mask[3 * 10 + 1]);
    }
}

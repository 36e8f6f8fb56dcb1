package io.sparkattention.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sparkattention.nn.MultiHeadAttentionWeights;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** PyTorch's nn.MultiheadAttention state_dict maps onto MultiHeadAttentionWeights and back. */
class MultiHeadAttentionStateDictTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    static Stream<String> mhaFixtures() {
        return Fixtures.ALL.stream().filter(n -> n.startsWith("mha_"));
    }

    private static float[] random(Random r, int n) {
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = (float) r.nextGaussian();
        }
        return x;
    }

    private static MultiHeadAttentionWeights randomWeights(long seed, int e, int heads, int kdim, int vdim,
                                                           boolean bias) {
        Random r = new Random(seed);
        return MultiHeadAttentionWeights.of(e, heads, kdim, vdim,
            random(r, e * e), random(r, e * kdim), random(r, e * vdim),
            bias ? random(r, e) : null, bias ? random(r, e) : null, bias ? random(r, e) : null,
            random(r, e * e), bias ? random(r, e) : null);
    }

    private static void assertSameWeights(MultiHeadAttentionWeights expected, MultiHeadAttentionWeights got) {
        assertEquals(expected.embedDim(), got.embedDim());
        assertEquals(expected.numHeads(), got.numHeads());
        assertEquals(expected.kdim(), got.kdim());
        assertEquals(expected.vdim(), got.vdim());
        assertArrayEquals(expected.qWeight(), got.qWeight());
        assertArrayEquals(expected.kWeight(), got.kWeight());
        assertArrayEquals(expected.vWeight(), got.vWeight());
        assertArrayEquals(expected.outWeight(), got.outWeight());
        assertArrayEquals(expected.qBias(), got.qBias());
        assertArrayEquals(expected.kBias(), got.kBias());
        assertArrayEquals(expected.vBias(), got.vBias());
        assertArrayEquals(expected.outBias(), got.outBias());
    }

    private static float[] rows(float[] matrix, int cols, int fromRow, int toRow) {
        return Arrays.copyOfRange(matrix, fromRow * cols, toRow * cols);
    }

    @ParameterizedTest
    @MethodSource("mhaFixtures")
    void everyFixtureLoadsWithItsConfiguredHeads(String name) throws Exception {
        SafeTensors st = SafeTensors.read(Fixtures.path(name));
        JsonNode c = JSON.readTree(st.metadata().get("config"));
        int e = c.get("embed_dim").asInt();
        MultiHeadAttentionWeights w = MultiHeadAttentionStateDict.load(st, "state_dict.", c.get("num_heads").asInt());

        assertEquals(e, w.embedDim());
        assertEquals(c.get("num_heads").asInt(), w.numHeads());
        assertEquals(c.get("kdim").asInt(), w.kdim());
        assertEquals(c.get("vdim").asInt(), w.vdim());
        assertEquals(c.get("bias").asBoolean(), w.hasBias());
        assertArrayEquals(st.floats("state_dict.out_proj.weight"), w.outWeight());
        if (st.has("state_dict.in_proj_weight")) {
            float[] in = st.floats("state_dict.in_proj_weight");
            assertArrayEquals(rows(in, e, 0, e), w.qWeight(), "W_q is rows [0, E)");
            assertArrayEquals(rows(in, e, e, 2 * e), w.kWeight(), "W_k is rows [E, 2E)");
            assertArrayEquals(rows(in, e, 2 * e, 3 * e), w.vWeight(), "W_v is rows [2E, 3E)");
        }
        if (w.hasBias()) {
            float[] in = st.floats("state_dict.in_proj_bias");
            assertArrayEquals(Arrays.copyOfRange(in, 0, e), w.qBias());
            assertArrayEquals(Arrays.copyOfRange(in, e, 2 * e), w.kBias());
            assertArrayEquals(Arrays.copyOfRange(in, 2 * e, 3 * e), w.vBias());
            assertArrayEquals(st.floats("state_dict.out_proj.bias"), w.outBias());
        }
    }

    @Test
    void crossAttentionFixtureUsesSeparateProjectionWeights() throws Exception {
        MultiHeadAttentionWeights w =
            MultiHeadAttentionStateDict.load(Fixtures.path("mha_cross_kdim_vdim"), "state_dict.", 2);
        assertEquals(16, w.embedDim());
        assertEquals(12, w.kdim());
        assertEquals(20, w.vdim());
        assertEquals(16 * 12, w.kWeight().length);
        // First and last elements as numpy reads them.
        assertEquals(0.10299524664878845f, w.qWeight()[0]);
        assertEquals(0.17739565670490265f, w.qWeight()[16 * 16 - 1]);
        assertEquals(-0.01528816856443882f, w.kWeight()[0]);
        assertEquals(-0.38902556896209717f, w.kWeight()[16 * 12 - 1]);
        assertEquals(-0.3787361979484558f, w.vWeight()[0]);
        assertEquals(0.11403172463178635f, w.vWeight()[16 * 20 - 1]);
        assertTrue(w.hasBias());
    }

    @Test
    void noBiasFixtureHasNoBiases() throws Exception {
        MultiHeadAttentionWeights w = MultiHeadAttentionStateDict.load(Fixtures.path("mha_no_bias"), "state_dict.", 3);
        assertFalse(w.hasBias());
        assertNull(w.qBias());
        assertNull(w.kBias());
        assertNull(w.vBias());
        assertNull(w.outBias());
    }

    @Test
    void prefixWithoutTrailingDotIsAccepted() throws Exception {
        Path f = Fixtures.path("mha_single_head");
        MultiHeadAttentionWeights a = MultiHeadAttentionStateDict.load(f, "state_dict", 1);
        MultiHeadAttentionWeights b = MultiHeadAttentionStateDict.load(f, "state_dict.", 1);
        assertSameWeights(a, b);
        assertEquals("", MultiHeadAttentionStateDict.normalizePrefix(null));
        assertEquals("", MultiHeadAttentionStateDict.normalizePrefix(""));
        assertEquals("self_attn.", MultiHeadAttentionStateDict.normalizePrefix("self_attn"));
    }

    @Test
    void aPrefixThatMatchesNothingListsTheFilesNames() {
        Path f = Fixtures.path("mha_self_basic");
        TensorFormatException e = assertThrows(TensorFormatException.class,
            () -> MultiHeadAttentionStateDict.load(f, "self_attn.", 4));
        assertEquals(f.toString(), e.source());
        assertTrue(e.getMessage().contains("no tensor name starts with prefix 'self_attn.'"), e.getMessage());
        assertTrue(e.getMessage().contains("'state_dict.in_proj_weight'"), e.getMessage());
    }

    @Test
    void numHeadsMustDivideTheEmbeddingDimension() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> MultiHeadAttentionStateDict.load(Fixtures.path("mha_self_basic"), "state_dict.", 5));
        assertTrue(e.getMessage().contains("numHeads (5)") && e.getMessage().contains("(16)"), e.getMessage());
        assertThrows(IllegalArgumentException.class,
            () -> MultiHeadAttentionStateDict.load(Fixtures.path("mha_self_basic"), "state_dict.", 0));
    }

    /** The fixture's state_dict with some tensors replaced ({@code null} removes one). */
    private Path editedStateDict(String file, Map<String, Tensor> changes) throws Exception {
        SafeTensors st = SafeTensors.read(Fixtures.path("mha_self_basic"));
        Map<String, Tensor> tensors = new TreeMap<>();
        for (String n : st.names()) {
            if (n.startsWith("state_dict.")) {
                tensors.put(n, Tensor.f32(st.floats(n), st.shape(n)));
            }
        }
        for (Map.Entry<String, Tensor> c : changes.entrySet()) {
            if (c.getValue() == null) {
                tensors.remove(c.getKey());
            } else {
                tensors.put(c.getKey(), c.getValue());
            }
        }
        Path path = dir.resolve(file);
        SafeTensorsWriter.write(path, tensors, null);
        return path;
    }

    private static Map<String, Tensor> change(String name, Tensor t) {
        Map<String, Tensor> m = new HashMap<>();
        m.put(name, t);
        return m;
    }

    private static TensorFormatException loadFails(Path f, String tensor, String phrase) {
        TensorFormatException e = assertThrows(TensorFormatException.class,
            () -> MultiHeadAttentionStateDict.load(f, "state_dict.", 4));
        assertEquals(f.toString(), e.source());
        assertEquals(tensor, e.tensor(), e.getMessage());
        assertTrue(e.getMessage().contains(phrase), () -> "'" + phrase + "' not in: " + e.getMessage());
        return e;
    }

    @Test
    void missingOutputProjectionIsNamedWithItsExpectedShape() throws Exception {
        Path f = editedStateDict("no-out.safetensors", change("state_dict.out_proj.weight", null));
        loadFails(f, "state_dict.out_proj.weight", "missing; expected shape [16, 16]");
    }

    @Test
    void missingInputProjectionListsWhatThePrefixHolds() throws Exception {
        Path f = editedStateDict("no-in.safetensors", change("state_dict.in_proj_weight", null));
        loadFails(f, "state_dict.in_proj_weight", "'state_dict.out_proj.weight'");
    }

    @Test
    void misShapedTensorsNameExpectedAndFoundShapes() throws Exception {
        loadFails(editedStateDict("out.safetensors",
                change("state_dict.out_proj.weight", Tensor.f32(new float[16 * 15], 16, 15))),
            "state_dict.out_proj.weight", "has shape [16, 15], expected [16, 16]");
        loadFails(editedStateDict("in.safetensors",
                change("state_dict.in_proj_weight", Tensor.f32(new float[47 * 16], 47, 16))),
            "state_dict.in_proj_weight", "has shape [47, 16], expected [3E, E]");
        loadFails(editedStateDict("bias.safetensors", change("state_dict.in_proj_bias", Tensor.f32(new float[16], 16))),
            "state_dict.in_proj_bias", "has shape [16], expected [48]");
        loadFails(editedStateDict("obias.safetensors",
                change("state_dict.out_proj.bias", Tensor.f32(new float[16], 1, 16))),
            "state_dict.out_proj.bias", "has shape [1, 16], expected [16]");
    }

    @Test
    void oneBiasWithoutTheOtherIsRefused() throws Exception {
        loadFails(editedStateDict("half-bias.safetensors", change("state_dict.out_proj.bias", null)),
            "state_dict.out_proj.bias", "missing, but state_dict.in_proj_bias is present");
    }

    @Test
    void addBiasKvIsNotSupported() throws Exception {
        loadFails(editedStateDict("bias-kv.safetensors",
                change("state_dict.bias_k", Tensor.f32(new float[16], 1, 1, 16))),
            "state_dict.bias_k", "add_bias_kv=True (state_dict.bias_k, state_dict.bias_v) is not supported");
    }

    @Test
    void packedAndSeparateWeightsTogetherAreAmbiguous() throws Exception {
        loadFails(editedStateDict("both.safetensors",
                change("state_dict.q_proj_weight", Tensor.f32(new float[256], 16, 16))),
            "state_dict.in_proj_weight", "present together with");
    }

    @Test
    void separateWeightsMustShareTheEmbeddingDimension() throws Exception {
        MultiHeadAttentionWeights w = randomWeights(3, 8, 2, 5, 6, true);
        Map<String, Tensor> tensors = new TreeMap<>(MultiHeadAttentionStateDict.toTensors(w, "state_dict."));
        tensors.put("state_dict.k_proj_weight", Tensor.f32(new float[7 * 5], 7, 5));
        Path f = dir.resolve("k.safetensors");
        SafeTensorsWriter.write(f, tensors, null);
        TensorFormatException e = assertThrows(TensorFormatException.class,
            () -> MultiHeadAttentionStateDict.load(f, "state_dict.", 2));
        assertEquals("state_dict.k_proj_weight", e.tensor());
        assertTrue(e.getMessage().contains("has shape [7, 5], expected [8, kdim]"), e.getMessage());
    }

    @Test
    void writtenWeightsLoadBackUnchanged() throws Exception {
        for (boolean bias : new boolean[] {true, false}) {
            MultiHeadAttentionWeights self = randomWeights(11, 12, 3, 12, 12, bias);
            Path f = dir.resolve("self-" + bias + ".safetensors");
            MultiHeadAttentionStateDict.write(f, self, "self_attn.", Map.of("num_heads", "3"));
            SafeTensors st = SafeTensors.read(f);
            List<String> expected = bias
                ? List.of("self_attn.in_proj_bias", "self_attn.in_proj_weight", "self_attn.out_proj.bias",
                    "self_attn.out_proj.weight")
                : List.of("self_attn.in_proj_weight", "self_attn.out_proj.weight");
            assertEquals(expected, st.names());
            assertEquals("3", st.metadata().get("num_heads"));
            assertSameWeights(self, MultiHeadAttentionStateDict.load(st, "self_attn.", 3));

            MultiHeadAttentionWeights cross = randomWeights(12, 8, 4, 5, 7, bias);
            Path g = dir.resolve("cross-" + bias + ".safetensors");
            MultiHeadAttentionStateDict.write(g, cross, "", null);
            SafeTensors sg = SafeTensors.read(g);
            assertArrayEquals(new long[] {8, 5}, sg.shape("k_proj_weight"));
            assertArrayEquals(new long[] {8, 7}, sg.shape("v_proj_weight"));
            assertFalse(sg.has("in_proj_weight"));
            assertSameWeights(cross, MultiHeadAttentionStateDict.load(sg, "", 4));
        }
    }

    /** Writing the weights loaded from a fixture reproduces the fixture's state_dict tensors. */
    @Test
    void fixtureStateDictSurvivesLoadAndWrite() throws Exception {
        for (String name : List.of("mha_causal", "mha_cross_kdim_vdim", "mha_no_bias")) {
            SafeTensors st = SafeTensors.read(Fixtures.path(name));
            int heads = JSON.readTree(st.metadata().get("config")).get("num_heads").asInt();
            Map<String, Tensor> written = MultiHeadAttentionStateDict.toTensors(
                MultiHeadAttentionStateDict.load(st, "state_dict.", heads), "state_dict.");
            List<String> original = st.names().stream().filter(n -> n.startsWith("state_dict.")).toList();
            assertEquals(original, written.keySet().stream().sorted().toList(), name);
            SafeTensors back = SafeTensors.fromBytes(SafeTensorsWriter.toBytes(written, null), "mem");
            for (String n : original) {
                assertArrayEquals(st.shape(n), back.shape(n), n);
                assertArrayEquals(st.floats(n), back.floats(n), n);
            }
        }
    }

    @Test
    void weightsWithoutAPyTorchCounterpartAreRefused() {
        Random r = new Random(5);
        MultiHeadAttentionWeights grouped = new MultiHeadAttentionWeights(8, 4, 2, 8, 8,
            random(r, 64), random(r, 32), random(r, 32), null, null, null, random(r, 64), null);
        assertThrows(IllegalArgumentException.class, () -> MultiHeadAttentionStateDict.toTensors(grouped, ""));
        MultiHeadAttentionWeights mixed = MultiHeadAttentionWeights.of(4, 2, 4, 4,
            random(r, 16), random(r, 16), random(r, 16), random(r, 4), random(r, 4), random(r, 4), random(r, 16), null);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> MultiHeadAttentionStateDict.toTensors(mixed, ""));
        assertTrue(e.getMessage().contains("all four biases"), e.getMessage());
    }
}

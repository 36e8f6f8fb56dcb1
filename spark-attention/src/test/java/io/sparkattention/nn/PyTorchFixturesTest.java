package io.sparkattention.nn;

import com.fasterxml.jackson.databind.JsonNode;
import io.sparkattention.io.MultiHeadAttentionStateDict;
import io.sparkattention.io.SafeTensors;
import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.RowMask;
import io.sparkattention.kernel.Workspace;
import io.sparkattention.testing.Fixtures;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.util.Arrays;

import static io.sparkattention.testing.Close.assertClose;

/**
 * Every case PyTorch computed (nn.MultiheadAttention 1.13, and the seed notebook's float64
 * attention) through the kernel and the multi-head layer, batch item by batch item, with small
 * tiles so that every case spans several query and key blocks.
 */
class PyTorchFixturesTest {

    private static final AttentionSpec SMALL_TILES = AttentionSpec.defaults().withBlocks(16, 24);

    @ParameterizedTest
    @ValueSource(strings = {"mha_self_basic", "mha_causal", "mha_key_padding", "mha_cross_kdim_vdim",
        "mha_float_mask_per_head_weights", "mha_no_bias", "mha_causal_padding_long", "mha_single_head"})
    @DisplayName("nn.MultiheadAttention fixtures: output and weights per batch item")
    void multiheadAttention(String name) throws IOException {
        SafeTensors st = Fixtures.open(name);
        JsonNode config = Fixtures.config(st);
        int heads = config.get("num_heads").asInt();
        MultiHeadAttentionWeights weights = MultiHeadAttentionStateDict.load(st, "state_dict.", heads);
        MultiHeadAttentionLayer layer = new MultiHeadAttentionLayer(weights,
            new FlashAttention(SMALL_TILES.withCausal(config.get("causal").asBoolean())));

        long[] qShape = st.shape("input.query");
        int batch = (int) qShape[0], L = (int) qShape[1], E = (int) qShape[2];
        boolean self = config.get("self_attention").asBoolean();
        float[] query = st.floats("input.query");
        float[] key = self ? query : st.floats("input.key");
        float[] value = self ? query : st.floats("input.value");
        int kdim = weights.kdim(), vdim = weights.vdim();
        int S = self ? L : (int) st.shape("input.key")[1];
        long[] lengths = st.has("input.lengths") ? st.longs("input.lengths") : null;
        float[] bias = st.has("input.attn_mask") ? st.floats("input.attn_mask") : null;
        boolean average = config.get("average_attn_weights").asBoolean();
        AttentionWeightsMode mode = !st.has("expected.attn_weights") ? AttentionWeightsMode.NONE
            : average ? AttentionWeightsMode.AVERAGED : AttentionWeightsMode.PER_HEAD;
        double[] expected = toDouble(st.floats("expected.attn_output"));
        double[] expectedWeights = mode == AttentionWeightsMode.NONE ? null : toDouble(st.floats("expected.attn_weights"));
        int weightsPerItem = (int) mode.size(heads, L, S);

        Workspace ws = new Workspace();
        for (int b = 0; b < batch; b++) {
            RowMask mask = RowMask.NONE;
            if (lengths != null) {
                mask = mask.withKeyLength((int) lengths[b]);
            }
            if (bias != null) {
                // PyTorch's float attn_mask is (B·H)×L×S: row b·H + h belongs to item b, head h.
                mask = mask.withBias(Arrays.copyOfRange(bias, b * heads * L * S, (b + 1) * heads * L * S));
            }
            Attention.Output out = layer.forward(
                Arrays.copyOfRange(query, b * L * E, (b + 1) * L * E), L,
                Arrays.copyOfRange(key, b * S * kdim, (b + 1) * S * kdim),
                Arrays.copyOfRange(value, b * S * vdim, (b + 1) * S * vdim), S, mask, mode, ws);
            assertClose(name + " item " + b + " output", Arrays.copyOfRange(expected, b * L * E, (b + 1) * L * E),
                out.values());
            if (mode != AttentionWeightsMode.NONE) {
                assertClose(name + " item " + b + " weights",
                    Arrays.copyOfRange(expectedWeights, b * weightsPerItem, (b + 1) * weightsPerItem), out.weights());
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sdpa_seed_plain", "sdpa_seed_causal", "sdpa_seed_cross_long"})
    @DisplayName("the seed notebook's float64 attention: output and weights per (batch, head)")
    void seedAttention(String name) throws IOException {
        SafeTensors st = Fixtures.open(name);
        long[] qs = st.shape("input.query"), ks = st.shape("input.key"), vs = st.shape("input.value");
        int bh = (int) qs[0], L = (int) qs[1], d = (int) qs[2], S = (int) ks[1], dv = (int) vs[2];
        FlashAttention kernel = new FlashAttention(SMALL_TILES.withCausal(Fixtures.config(st).get("causal").asBoolean()));
        float[] q = st.floats("input.query"), k = st.floats("input.key"), v = st.floats("input.value");
        double[] expected = st.doubles("expected.output");
        double[] expectedWeights = st.has("expected.attention_weights") ? st.doubles("expected.attention_weights") : null;
        AttentionShape shape = new AttentionShape(L, S, 1, 1, d, dv);
        Workspace ws = new Workspace();
        for (int r = 0; r < bh; r++) {
            Attention.Output out = Attention.compute(kernel, shape,
                Arrays.copyOfRange(q, r * L * d, (r + 1) * L * d), Arrays.copyOfRange(k, r * S * d, (r + 1) * S * d),
                Arrays.copyOfRange(v, r * S * dv, (r + 1) * S * dv), RowMask.NONE,
                expectedWeights == null ? AttentionWeightsMode.NONE : AttentionWeightsMode.AVERAGED, ws);
            assertClose(name + " row " + r + " output", Arrays.copyOfRange(expected, r * L * dv, (r + 1) * L * dv),
                out.values());
            if (expectedWeights != null) {
                assertClose(name + " row " + r + " weights", Arrays.copyOfRange(expectedWeights, r * L * S, (r + 1) * L * S),
                    out.weights());
            }
        }
    }

    private static double[] toDouble(float[] f) {
        double[] d = new double[f.length];
        for (int i = 0; i < f.length; i++) {
            d[i] = f[i];
        }
        return d;
    }
}

package io.sparkattention.kernel;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sparkattention.io.SafeTensors;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Paths;

/**
 * One {@code sdpa_grad_*} fixture (PyTorch autograd in float64; the shared fixtures' training
 * README names the tensors): BH independent
 * (batch, head) problems, read into the kernel's layouts. Without per-problem key lengths the
 * problems are the heads of one sequence (H = BH, Hkv = kv_heads, masks and bias H×L×S); with
 * them each problem is its own one-head sequence ({@link #problems}).
 */
final class SdpaGradFixture {

    static final String[] NAMES = {"sdpa_grad_plain", "sdpa_grad_causal", "sdpa_grad_causal_bottom_right",
        "sdpa_grad_padding_window", "sdpa_grad_bias_mask", "sdpa_grad_gqa", "sdpa_grad_large_logits"};

    final String name;
    final int heads, kvHeads, L, S, d, dv;
    final AttentionSpec spec;
    /** Valid keys per problem, or null. */
    final long[] lengths;
    /** BH×L×d etc., as stored. */
    final float[] q, k, v, dOut, bias;
    final boolean[] allowed;
    final double[] out, lse, dq, dk, dV, dBias;

    SdpaGradFixture(String name) {
        this.name = name;
        URL url = SdpaGradFixture.class.getResource("/fixtures/training/" + name + ".safetensors");
        if (url == null) {
            throw new IllegalArgumentException("no fixture " + name);
        }
        try {
            SafeTensors st = SafeTensors.read(Paths.get(url.toURI()));
            JsonNode config = new ObjectMapper().readTree(st.metadata().get("config"));
            heads = config.get("batch_heads").asInt();
            kvHeads = config.get("kv_heads").asInt();
            L = config.get("query_length").asInt();
            S = config.get("key_length").asInt();
            d = config.get("head_dim").asInt();
            dv = config.get("value_dim").asInt();
            AttentionSpec s = AttentionSpec.defaults().withScale((float) config.get("scale").asDouble())
                .withCausal(config.get("causal").asBoolean())
                .withAlignment("bottom_right".equals(config.get("causal_alignment").asText())
                    ? CausalAlignment.BOTTOM_RIGHT : CausalAlignment.TOP_LEFT);
            if (config.hasNonNull("window")) {
                s = s.withWindow(config.get("window").get(0).asInt(), config.get("window").get(1).asInt());
            }
            spec = s;
            lengths = st.has("input.lengths") ? st.longs("input.lengths") : null;
            q = st.floats("input.query");
            k = st.floats("input.key");
            v = st.floats("input.value");
            dOut = st.floats("input.grad_output");
            bias = st.has("input.attn_bias") ? st.floats("input.attn_bias") : null;
            allowed = st.has("input.attn_mask") ? st.booleans("input.attn_mask") : null;
            out = st.doubles("expected.output");
            lse = st.doubles("expected.lse");
            dq = st.doubles("expected.grad_query");
            dk = st.doubles("expected.grad_key");
            dV = st.doubles("expected.grad_value");
            dBias = st.has("expected.grad_attn_bias") ? st.doubles("expected.grad_attn_bias") : null;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        if (lengths != null && kvHeads != heads) {
            throw new IllegalStateException(name + ": per-problem key lengths with grouped heads");
        }
    }

    /** Independent calls: one with every head, or one per problem when the key lengths differ. */
    int problems() {
        return lengths == null ? 1 : heads;
    }

    /** Heads of each call. */
    int callHeads() {
        return lengths == null ? heads : 1;
    }

    int callKvHeads() {
        return lengths == null ? kvHeads : 1;
    }

    /** First head of call {@code p}. */
    int firstHead(int p) {
        return lengths == null ? 0 : p;
    }

    RowMask mask(int p) {
        int h0 = firstHead(p), n = callHeads(), plane = L * S;
        RowMask mask = lengths == null ? RowMask.NONE : RowMask.keyLength((int) lengths[p]);
        if (allowed != null) {
            boolean[] a = new boolean[n * plane];
            System.arraycopy(allowed, h0 * plane, a, 0, a.length);
            mask = mask.withAllowed(a);
        }
        if (bias != null) {
            float[] b = new float[n * plane];
            System.arraycopy(bias, h0 * plane, b, 0, b.length);
            mask = mask.withBias(b);
        }
        return mask;
    }

    /** Heads {@code [h0, h0 + n)} of a BH×rows×dim tensor as rows×(n·dim). */
    static float[] interleave(float[] x, int h0, int n, int rows, int dim) {
        float[] y = new float[rows * n * dim];
        for (int h = 0; h < n; h++) {
            for (int i = 0; i < rows; i++) {
                System.arraycopy(x, ((h0 + h) * rows + i) * dim, y, i * n * dim + h * dim, dim);
            }
        }
        return y;
    }

    /** The inverse of {@link #interleave}, into heads {@code [h0, h0 + n)} of {@code y}. */
    static void separate(float[] x, int h0, int n, int rows, int dim, float[] y) {
        for (int h = 0; h < n; h++) {
            for (int i = 0; i < rows; i++) {
                System.arraycopy(x, i * n * dim + h * dim, y, ((h0 + h) * rows + i) * dim, dim);
            }
        }
    }

    @Override
    public String toString() {
        return name;
    }
}

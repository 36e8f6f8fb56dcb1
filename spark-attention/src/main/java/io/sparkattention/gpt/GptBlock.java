package io.sparkattention.gpt;

import io.sparkattention.bert.EncoderMath;
import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.CausalAlignment;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.LinearKernel;
import io.sparkattention.kernel.LinearWeight;
import io.sparkattention.nn.KeyValueCache;
import io.sparkattention.nn.MultiHeadAttentionLayer;
import io.sparkattention.nn.MultiHeadAttentionWeights;

/**
 * Hugging Face's {@code GPT2Block} in eval mode: a pre-LayerNorm transformer block.
 * <pre>
 *   a = LN(x; ln_1)                                          M×E
 *   x = x + attention(a)·W_proj + b_proj                     causal, fused QKV, one MultiHeadAttentionLayer
 *   m = LN(x; ln_2)                                          M×E
 *   x = x + act(m·W_fc + b_fc)·W_mproj + b_mproj             via M×F, act gelu_new (or gelu)
 * </pre>
 * It is {@code io.sparkattention.bert.BertLayer} with each LayerNorm moved from after its
 * residual sum (post-LN: {@code x = LN(x + f(x))}) to the front of its sub-block (pre-LN:
 * {@code x = x + f(LN(x))}); the attention layer, the projections, the activations' and the
 * LayerNorm's arithmetic are the encoder's. This is the one place that says so.
 *
 * <p>GPT-2's Conv1D weights ({@code [in, out]}) are transposed once here into the projections'
 * {@code out×in} layout and prepared for the projection kernel ({@link LinearWeight}). The
 * attention kernel's spec is causal with the diagonal bottom-right, so the same layer runs whole
 * rows ({@link #forward}) and new tokens over a KV cache ({@link #cachedForward}).
 * Thread-safe: weights only; scratch comes from the caller.
 */
final class GptBlock {

    private static final EncoderMath NORM = EncoderMath.get();
    private static final DecoderMath MATH = DecoderMath.INSTANCE;

    // The prepared weights, read by the training block ({@link GptTrainingBlock}) too.
    final int width;
    final int inner;
    final float eps;
    final float[] norm1Weight;
    final float[] norm1Bias;
    final float[] norm2Weight;
    final float[] norm2Bias;
    final MultiHeadAttentionLayer attention;
    final LinearWeight feedForward;
    final LinearWeight feedForwardProjection;
    private final boolean exactGelu;

    GptBlock(GptConfig c, GptWeights.Layer w, FlashAttention kernel, LinearKernel linear) {
        int E = c.hidden(), F = c.inner();
        this.width = E;
        this.inner = F;
        this.eps = c.layerNormEps();
        this.exactGelu = c.activation().equals(GptConfig.GELU);
        this.norm1Weight = w.norm1Weight();
        this.norm1Bias = w.norm1Bias();
        this.norm2Weight = w.norm2Weight();
        this.norm2Bias = w.norm2Bias();
        this.attention = attentionLayer(c, w, kernel, linear);
        this.feedForward = LinearWeight.of(linear, transpose(w.feedForwardWeight(), E, F), F, E,
            w.feedForwardBias());
        this.feedForwardProjection = LinearWeight.of(linear, transpose(w.feedForwardProjectionWeight(), F, E), E, F,
            w.feedForwardProjectionBias());
    }

    /**
     * The block's causal self-attention (c_attn split into q, k, v and c_proj, transposed into
     * {@code nn.Linear}'s layout) as the library's one multi-head layer: the inference blocks' and
     * the training blocks' ({@link GptTrainingBlock}).
     */
    static MultiHeadAttentionLayer attentionLayer(GptConfig c, GptWeights.Layer w, FlashAttention kernel,
                                                  LinearKernel linear) {
        int E = c.hidden();
        float[] qkv = transpose(w.attentionWeight(), E, 3 * E);
        float[] b = w.attentionBias();
        return new MultiHeadAttentionLayer(MultiHeadAttentionWeights.of(E, c.heads(), E, E,
            slice(qkv, 0, E * E), slice(qkv, E * E, E * E), slice(qkv, 2 * E * E, E * E), slice(b, 0, E),
            slice(b, E, E), slice(b, 2 * E, E), transpose(w.attentionProjectionWeight(), E, E),
            w.attentionProjectionBias()), kernel, linear);
    }

    /** The decoder's attention kernel: causal, the diagonal bottom-right (whole rows and KV-cached rows alike). */
    static FlashAttention causalKernel() {
        return new FlashAttention(AttentionSpec.defaults().withCausal(true)
            .withAlignment(CausalAlignment.BOTTOM_RIGHT));
    }

    /** Whether the projections compute each row independently of the others, bit for bit. */
    boolean rowsIndependent() {
        return feedForward.rowsIndependent();
    }

    /**
     * Whole rows stacked in x (sequence r: rows {@code [starts[r], starts[r+1])}, M×E), replaced by
     * the block's output. Writes the heads' causal probabilities (H×L×L) of the only sequence
     * when {@code probs} is not null.
     */
    void forward(float[] x, int[] starts, int count, GptScratch s, float[] probs) {
        int M = starts[count];
        normalize(x, s.normed, M, norm1Weight, norm1Bias);
        attention.selfForward(s.normed, starts, count, s.attention, s.projected, probs);
        add(x, s.projected, M * width);
        feedForward(x, M, s);
    }

    /**
     * New tokens of several sequences stacked in x (sequence r: rows {@code [starts[r], starts[r+1])}),
     * attending over their caches (which take their keys and values), replaced by the block's output.
     */
    void cachedForward(float[] x, int[] starts, int count, KeyValueCache[] caches, GptScratch s) {
        int M = starts[count];
        normalize(x, s.normed, M, norm1Weight, norm1Bias);
        attention.cachedForward(s.normed, starts, count, caches, s.attention, s.projected);
        add(x, s.projected, M * width);
        feedForward(x, M, s);
    }

    private void feedForward(float[] x, int M, GptScratch s) {
        normalize(x, s.normed, M, norm2Weight, norm2Bias);
        feedForward.apply(s.normed, M, s.hidden);
        activate(s.hidden, M * inner);
        feedForwardProjection.apply(s.hidden, M, s.projected);
        add(x, s.projected, M * width);
    }

    /** {@code u[i] = act(u[i])} for i &lt; n: gelu_new, or the exact gelu. */
    void activate(float[] u, int n) {
        if (exactGelu) {
            NORM.gelu(u, n);
        } else {
            MATH.geluNew(u, n);
        }
    }

    /** The activation's backward, {@code d[i] = dy[i]·act'(pre[i])} for i &lt; n (d may be dy). */
    void activationBackward(float[] pre, float[] dy, float[] d, int n) {
        if (exactGelu) {
            NORM.geluGradient(pre, dy, d, n);
        } else {
            MATH.geluNewBackward(pre, dy, d, n);
        }
    }

    /** {@code out = LN(x)} row by row (x kept for the residual). */
    private void normalize(float[] x, float[] out, int M, float[] gamma, float[] beta) {
        System.arraycopy(x, 0, out, 0, M * width);
        NORM.layerNorm(out, null, M, width, gamma, beta, eps);
    }

    /** The residual: {@code x[i] += y[i]} for i &lt; n, in float32 as PyTorch adds two tensors. */
    static void add(float[] x, float[] y, int n) {
        for (int i = 0; i < n; i++) {
            x[i] += y[i];
        }
    }

    /** A Conv1D weight {@code [in, out]} as the {@code out×in} weight of {@code nn.Linear}. */
    static float[] transpose(float[] w, int in, int out) {
        float[] t = new float[in * out];
        for (int i = 0; i < in; i++) {
            for (int o = 0; o < out; o++) {
                t[o * in + i] = w[i * out + o];
            }
        }
        return t;
    }

    private static float[] slice(float[] a, int from, int n) {
        return java.util.Arrays.copyOfRange(a, from, from + n);
    }
}

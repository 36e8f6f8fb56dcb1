package io.sparkattention.gpt;

import io.sparkattention.bert.DropoutMask;
import io.sparkattention.bert.EncoderMath;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.LinearKernel;
import io.sparkattention.kernel.LinearWeight;
import io.sparkattention.kernel.ProbabilityDropout;
import io.sparkattention.kernel.WeightGradient;
import io.sparkattention.nn.GradientSlots;

/**
 * One {@link GptBlock} in training, over blocks stacked in M rows (block r: rows
 * {@code [starts[r], starts[r+1])}), with GPT-2's dropout sites (p &gt; 0 in training only: the
 * probabilities, each c_proj's output before its residual; {@link DropoutMask}, keyed by the block).
 * <pre>
 *   forward:   a = LN(x; ln_1)                                keeps a, x̂₁, rstd₁
 *              x = x + M₁∘attention(a)                        causal, keeps qkv, ctx, lse
 *              m = LN(x; ln_2)                                keeps m, x̂₂, rstd₂
 *              u = m·W_fc + b_fc;  x = x + M₂∘(act(u)·W_mproj + b_mproj)     keeps u and act(u) (M×F)
 *   backward:  g the gradient of the output (the residual stream's), updated in place to the input's:
 *              dy = g∘M₂;  dW_mproj += act(u)ᵀ·dy,  db += Σ dy;  du = (dy·W_mprojᵀ)∘act'(u)
 *              dW_fc += mᵀ·du,  db_fc += Σ du;  g += LN₂'(du·W_fcᵀ)
 *              dy = g∘M₁;  da = attention'(dy) (its gradients in Linear layout);  g += LN₁'(da)
 * </pre>
 * Conv1D weights {@code [in, out]}: the forward applies their transpose (prepared once), the input
 * gradients apply the weights as they lie ({@code dx = dy·Wᵀ}), and the weight gradients
 * {@code xᵀ·dy} land in the Conv1D layout directly. The attention layer's gradients are
 * {@code nn.Linear}'s ({@code dyᵀ·x}) and are transposed once per flush ({@link #foldAttentionGradient}).
 * Thread-safe: weights only; records and scratch come from the caller.
 */
final class GptTrainingBlock {

    private static final EncoderMath NORM = EncoderMath.get();

    /** The inference block's prepared weights: LayerNorms, attention, the forward projections. */
    private final GptBlock block;
    /** The Conv1D weights as they lie: applying them gives an input's gradient. */
    private final LinearWeight feedForwardInput;
    private final LinearWeight feedForwardProjectionInput;
    /** Where the attention's gradients go in {@link GptTrainingRecord.Layer#attentionGradient}. */
    private final GradientSlots slots;
    private final Offsets at;

    /** The flat offsets of the block's twelve tensors ({@link GptWeights#shapes} order). */
    record Offsets(int norm1Weight, int norm1Bias, int attentionWeight, int attentionBias,
                   int attentionProjectionWeight, int attentionProjectionBias, int norm2Weight, int norm2Bias,
                   int feedForwardWeight, int feedForwardBias, int feedForwardProjectionWeight,
                   int feedForwardProjectionBias) {
    }

    GptTrainingBlock(GptConfig c, GptWeights.Layer w, Offsets at, FlashAttention kernel, LinearKernel linear) {
        int E = c.hidden(), F = c.inner();
        this.block = new GptBlock(c, w, kernel, linear);
        this.feedForwardInput = LinearWeight.of(linear, w.feedForwardWeight(), E, F, null);
        this.feedForwardProjectionInput = LinearWeight.of(linear, w.feedForwardProjectionWeight(), F, E, null);
        this.slots = GradientSlots.packed(E, E, 0, 3 * E * E, 3 * E * E + 3 * E, 4 * E * E + 3 * E);
        this.at = at;
    }

    /** Values of a block's attention gradient in Linear layout: [Wq; Wk; Wv] 3E×E, b 3E, Wo E×E, bo E. */
    static int attentionGradientSize(int E) {
        return 4 * E * E + 4 * E;
    }

    /**
     * The training (or evaluation, without masks) forward: x (M×E) replaced by the block's output.
     *
     * @param masks per stacked block its three masks ({@link DropoutMask#ATTENTION_PROBS}, …), or null for none
     */
    void forward(float[] x, int[] starts, int count, GptTrainingRecord.Layer rec, GptTrainingRecord.Scratch s,
                 DropoutMask[][] masks) {
        GptBlock b = block;
        int E = b.width, M = starts[count];
        System.arraycopy(x, 0, rec.normed1, 0, M * E);
        NORM.layerNormKeeping(rec.normed1, null, M, E, b.norm1Weight, b.norm1Bias, b.eps, rec.norm1.xhat(),
            rec.norm1.rstd());
        b.attention.selfForward(rec.normed1, starts, count, rec.attention, s.projected, null,
            probabilities(masks, starts, count));
        residual(x, s.projected, starts, count, masks, DropoutMask.ATTENTION_OUTPUT);
        System.arraycopy(x, 0, rec.normed2, 0, M * E);
        NORM.layerNormKeeping(rec.normed2, null, M, E, b.norm2Weight, b.norm2Bias, b.eps, rec.norm2.xhat(),
            rec.norm2.rstd());
        b.feedForward.apply(rec.normed2, M, rec.pre);
        System.arraycopy(rec.pre, 0, rec.act, 0, M * b.inner);
        b.activate(rec.act, M * b.inner);
        b.feedForwardProjection.apply(rec.act, M, s.projected);
        residual(x, s.projected, starts, count, masks, DropoutMask.FEED_FORWARD_OUTPUT);
    }

    /**
     * The backward of the last {@link #forward} on {@code rec} with the same masks: {@code g} (M×E,
     * the output's gradient) becomes the input's; the block's gradients are added into {@code grad}
     * (Conv1D layout, the flat offsets) and into the record's attention gradient.
     */
    void backward(float[] g, int[] starts, int count, GptTrainingRecord.Layer rec, GptTrainingRecord.Scratch s,
                  DropoutMask[][] masks, float[] grad) {
        GptBlock b = block;
        int E = b.width, F = b.inner, M = starts[count];
        WeightGradient wg = s.weightGradient;
        float[] dy = masked(g, s.projected, starts, count, masks, DropoutMask.FEED_FORWARD_OUTPUT);
        wg.accumulate(M, E, F, rec.act, dy, grad, at.feedForwardProjectionWeight());
        addBiasGradient(dy, M, E, grad, at.feedForwardProjectionBias());
        feedForwardProjectionInput.apply(dy, M, s.dAct);
        b.activationBackward(rec.pre, s.dAct, s.dAct, M * F);
        wg.accumulate(M, F, E, rec.normed2, s.dAct, grad, at.feedForwardWeight());
        addBiasGradient(s.dAct, M, F, grad, at.feedForwardBias());
        feedForwardInput.apply(s.dAct, M, s.dNormed);
        NORM.layerNormGradient(s.dNormed, rec.norm2.xhat(), rec.norm2.rstd(), M, E, b.norm2Weight, s.dNormed, grad,
            at.norm2Weight(), at.norm2Bias(), rec.norm2.sums());
        GptBlock.add(g, s.dNormed, M * E);
        dy = masked(g, s.projected, starts, count, masks, DropoutMask.ATTENTION_OUTPUT);
        b.attention.selfBackward(rec.normed1, starts, count, rec.attention, dy, s.dNormed, rec.attentionGradient,
            slots, probabilities(masks, starts, count));
        NORM.layerNormGradient(s.dNormed, rec.norm1.xhat(), rec.norm1.rstd(), M, E, b.norm1Weight, s.dNormed, grad,
            at.norm1Weight(), at.norm1Bias(), rec.norm1.sums());
        GptBlock.add(g, s.dNormed, M * E);
    }

    /**
     * Adds the record's attention gradients into {@code grad} in the flat vector's layout (c_attn
     * {@code [E, 3E]} and c_proj {@code [E, E]} transposed back, the biases as they are) and
     * clears them.
     */
    void foldAttentionGradient(GptTrainingRecord.Layer rec, float[] grad) {
        int E = block.width;
        float[] a = rec.attentionGradient;
        foldTransposed(a, 0, 3 * E, E, grad, at.attentionWeight());
        foldTransposed(a, slots.outWeight(), E, E, grad, at.attentionProjectionWeight());
        for (int i = 0; i < 3 * E; i++) {
            grad[at.attentionBias() + i] += a[slots.qBias() + i];
        }
        for (int i = 0; i < E; i++) {
            grad[at.attentionProjectionBias() + i] += a[slots.outBias() + i];
        }
        java.util.Arrays.fill(a, 0f);
    }

    /** {@code grad[off + i·out + o] += a[from + o·in + i]}: an out×in Linear gradient into Conv1D [in, out]. */
    private static void foldTransposed(float[] a, int from, int out, int in, float[] grad, int off) {
        for (int o = 0; o < out; o++) {
            for (int i = 0; i < in; i++) {
                grad[off + i * out + o] += a[from + o * in + i];
            }
        }
    }

    /** {@code x += M∘y}, block by block (each block's mask of {@code kind}, its elements from 0). */
    private void residual(float[] x, float[] y, int[] starts, int count, DropoutMask[][] masks, int kind) {
        int E = block.width;
        if (masks != null) {
            for (int r = 0; r < count; r++) {
                masks[r][kind].apply(y, starts[r] * E, (starts[r + 1] - starts[r]) * E, 0);
            }
        }
        GptBlock.add(x, y, starts[count] * E);
    }

    /** g∘M of kind {@code kind} in {@code into}, or g itself without masks. */
    private float[] masked(float[] g, float[] into, int[] starts, int count, DropoutMask[][] masks, int kind) {
        if (masks == null) {
            return g;
        }
        int E = block.width;
        System.arraycopy(g, 0, into, 0, starts[count] * E);
        for (int r = 0; r < count; r++) {
            masks[r][kind].apply(into, starts[r] * E, (starts[r + 1] - starts[r]) * E, 0);
        }
        return into;
    }

    /** The blocks' probability dropouts, or null without masks. */
    private static ProbabilityDropout[] probabilities(DropoutMask[][] masks, int[] starts, int count) {
        if (masks == null) {
            return null;
        }
        ProbabilityDropout[] d = new ProbabilityDropout[count];
        for (int r = 0; r < count; r++) {
            int L = starts[r + 1] - starts[r];
            d[r] = masks[r][DropoutMask.ATTENTION_PROBS].probabilities(L, L);
        }
        return d;
    }

    /** {@code g[off + c] += Σ_rows dy[r·n + c]}, each column summed in float64 first. */
    static void addBiasGradient(float[] dy, int rows, int n, float[] g, int off) {
        double[] sums = new double[n];
        for (int r = 0; r < rows; r++) {
            for (int c = 0, a = r * n; c < n; c++) {
                sums[c] += dy[a + c];
            }
        }
        for (int c = 0; c < n; c++) {
            g[off + c] += (float) sums[c];
        }
    }
}

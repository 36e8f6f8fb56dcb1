package io.sparkattention.bert;

import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.DirectAttention;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.LinearWeight;
import io.sparkattention.kernel.RowMask;
import io.sparkattention.kernel.Workspace;

import java.io.Serializable;
import java.util.Objects;

/**
 * The forward pass of a BERT-family encoder (Hugging Face's {@code BertModel} in eval mode, no
 * pooler) over one sequence of token ids, in float32: the last hidden state.
 *
 * <pre>
 *   x = LN(word[ids] + position[0..L) + tokenType[0])                      L×E
 *   per layer:
 *     [q | k | v] = x·[Wq; Wk; Wv]ᵀ + [bq; bk; bv]                          L×3E, one GEMM
 *     a = attention(q, k, v) over H heads of E/H columns, no mask           L×E
 *     x = LN(x + a·Woᵀ + bo)
 *     x = LN(x + gelu(x·Wiᵀ + bi)·Wo2ᵀ + bo2)                               via L×F
 * </pre>
 * Each sequence attends over its own length only: nothing is padded, so a sentence's output does
 * not depend on what else is being encoded.
 *
 * <p>Immutable and thread-safe. The projections are prepared (packed for the JVM's projection
 * kernel, {@link LinearWeight}) once per JVM on first use and shared by every thread; the
 * prepared form is not serialized. Each thread reuses its own scratch across sequences.
 */
public final class BertEncoder implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Per-thread buffers, grown to the longest sequence seen; shared by all encoders of the thread. */
    private static final ThreadLocal<EncoderScratch> SCRATCH = ThreadLocal.withInitial(EncoderScratch::new);

    /**
     * Longest sequence whose attention runs on {@link DirectAttention} rather than the tiled
     * {@link FlashAttention}: the direct path took 0.17–0.27× the tiled kernel's time at L = 24–90
     * (MiniLM's 12 heads of 32), 1.6× at L = 256 (EncoderParts, CPU time per call).
     */
    static final int DIRECT_MAX_LENGTH = 128;

    /** GELU and LayerNorm of this JVM. */
    private static final EncoderMath MATH = EncoderMath.INSTANCE;

    private final BertWeights weights;
    private final FlashAttention kernel;
    /** The weights prepared for this JVM's projection kernel, built on first use. */
    private transient volatile Prepared prepared;

    /** An encoder on the JVM's attention kernel with PyTorch's scale 1/√(E/H). */
    public BertEncoder(BertWeights weights) {
        this(weights, new FlashAttention(AttentionSpec.defaults()));
    }

    /** An encoder on a given attention kernel (its spec must be non-causal, unwindowed). */
    public BertEncoder(BertWeights weights, FlashAttention kernel) {
        this.weights = Objects.requireNonNull(weights, "weights");
        this.kernel = Objects.requireNonNull(kernel, "kernel");
    }

    public BertConfig config() {
        return weights.config();
    }

    /** The plain tensors (for saving). */
    public BertWeights weights() {
        return weights;
    }

    /**
     * The last hidden state of one sequence.
     *
     * @param inputIds token ids, [CLS] … [SEP] as the tokenizer made them
     * @return L×hidden row-major, L = {@code inputIds.length}; empty for L = 0
     * @throws IllegalArgumentException naming the position of an id outside [0, vocabSize), or
     *                                  when L exceeds maxPositions
     */
    public float[] forward(int[] inputIds) {
        checkIds(inputIds);
        return run(inputIds, -1, null);
    }

    /**
     * {@link #forward(int[])}, also writing layer {@code attentionLayer}'s attention probabilities
     * per head into {@code headWeightsOut}: heads×L×L, {@code [h][query][key]}.
     *
     * @throws IllegalArgumentException as {@link #forward(int[])}, or when the layer is outside
     *                                  [0, layers) or headWeightsOut is not heads·L·L long
     */
    public float[] forward(int[] inputIds, int attentionLayer, float[] headWeightsOut) {
        checkIds(inputIds);
        BertConfig c = config();
        if (attentionLayer < 0 || attentionLayer >= c.layers()) {
            throw new IllegalArgumentException("attention layer " + attentionLayer + " outside [0, " + c.layers()
                + ")");
        }
        Objects.requireNonNull(headWeightsOut, "headWeightsOut");
        long L = inputIds.length;
        if (headWeightsOut.length != c.heads() * L * L) {
            throw new IllegalArgumentException("headWeightsOut has " + headWeightsOut.length + " values, expected "
                + c.heads() + "×" + L + "×" + L);
        }
        return run(inputIds, attentionLayer, headWeightsOut);
    }

    private void checkIds(int[] ids) {
        Objects.requireNonNull(ids, "inputIds");
        BertConfig c = config();
        if (ids.length > c.maxPositions()) {
            throw new IllegalArgumentException("sequence of " + ids.length + " tokens is longer than the "
                + c.maxPositions() + " positions of the model");
        }
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] < 0 || ids[i] >= c.vocabSize()) {
                throw new IllegalArgumentException("token id " + ids[i] + " at position " + i + " is outside [0, "
                    + c.vocabSize() + ")");
            }
        }
    }

    /**
     * The last hidden states of several sequences, each bit for bit what {@link #forward(int[])}
     * gives it alone: when the projection kernel computes every row independently of the others
     * ({@link LinearWeight#rowsIndependent()}, the Vector API kernel) the sequences are stacked
     * into one call of each projection, so its weights are read once for all of them; otherwise
     * they run one at a time. Attention, GELU and LayerNorm are per sequence and per row anyway.
     *
     * @param batch token id sequences
     * @return one L×hidden array per sequence, in order
     * @throws IllegalArgumentException as {@link #forward(int[])}, naming the sequence (0-based)
     */
    public float[][] forward(int[][] batch) {
        Objects.requireNonNull(batch, "batch");
        float[][] out = new float[batch.length][];
        long total = 0;
        for (int r = 0; r < batch.length; r++) {
            try {
                checkIds(batch[r]);
            } catch (IllegalArgumentException | NullPointerException e) {
                throw new IllegalArgumentException("sequence " + r + " of the batch: " + e.getMessage(), e);
            }
            total += batch[r].length;
        }
        if (total * 3 * config().hidden() > Integer.MAX_VALUE - 8 || total * config().intermediate()
            > Integer.MAX_VALUE - 8 || !prepared().layers[0].qkv.rowsIndependent()) {
            for (int r = 0; r < batch.length; r++) {
                out[r] = run(batch[r], -1, null);
            }
            return out;
        }
        int E = config().hidden();
        int[] starts = new int[batch.length + 1];
        for (int r = 0; r < batch.length; r++) {
            starts[r + 1] = starts[r] + batch[r].length;
        }
        float[] x = new float[starts[batch.length] * E];
        encode(batch, starts, x, -1, null);
        for (int r = 0; r < batch.length; r++) {
            out[r] = java.util.Arrays.copyOfRange(x, starts[r] * E, starts[r + 1] * E);
        }
        return out;
    }

    private float[] run(int[] ids, int attentionLayer, float[] headWeights) {
        float[] x = new float[ids.length * config().hidden()];
        encode(new int[][] {ids}, new int[] {0, ids.length}, x, attentionLayer, headWeights);
        return x;
    }

    /**
     * Encodes sequences stacked in x: sequence r holds rows {@code [starts[r], starts[r+1])}.
     * The probabilities of layer {@code attentionLayer} are written for a single sequence only.
     */
    private void encode(int[][] batch, int[] starts, float[] x, int attentionLayer, float[] headWeights) {
        BertConfig c = config();
        int M = starts[batch.length], E = c.hidden(), F = c.intermediate(), H = c.heads();
        if (M == 0) {
            return;
        }
        Prepared p = prepared();
        EncoderScratch s = SCRATCH.get();
        s.ensure(M, E, F, H);
        for (int r = 0; r < batch.length; r++) {
            embed(batch[r], x, starts[r] * E);
        }
        MATH.layerNorm(x, null, M, E, weights.tensor(BertWeights.EMBEDDINGS_NORM_WEIGHT),
            weights.tensor(BertWeights.EMBEDDINGS_NORM_BIAS), c.layerNormEps());
        for (int n = 0; n < c.layers(); n++) {
            PreparedLayer layer = p.layers[n];
            layer.qkv.apply(x, M, s.qkv);
            for (int r = 0; r < batch.length; r++) {
                attention(s, starts[r], starts[r + 1] - starts[r], n == attentionLayer ? headWeights : null);
            }
            layer.attentionOutput.apply(s.context, M, s.projected);
            MATH.layerNorm(x, s.projected, M, E, layer.w.attentionNormWeight(), layer.w.attentionNormBias(),
                c.layerNormEps());
            layer.intermediate.apply(x, M, s.hidden);
            MATH.gelu(s.hidden, M * F);
            layer.output.apply(s.hidden, M, s.projected);
            MATH.layerNorm(x, s.projected, M, E, layer.w.outputNormWeight(), layer.w.outputNormBias(),
                c.layerNormEps());
        }
    }

    /** Rows from {@code offset} of x: {@code word[ids] + position[0..L) + tokenType[0]} (normalised by the caller). */
    private void embed(int[] ids, float[] x, int offset) {
        int E = config().hidden();
        float[] word = weights.tensor(BertWeights.WORD_EMBEDDINGS);
        float[] position = weights.tensor(BertWeights.POSITION_EMBEDDINGS);
        float[] type = weights.tensor(BertWeights.TOKEN_TYPE_EMBEDDINGS);
        for (int i = 0; i < ids.length; i++) {
            int w = ids[i] * E, p = i * E, o = offset + i * E;
            for (int j = 0; j < E; j++) {
                x[o + j] = word[w + j] + position[p + j] + type[j];
            }
        }
    }

    /**
     * One sequence's attention, rows {@code [row0, row0 + L)} of {@code s.qkv} (3E wide) into the
     * same rows of {@code s.context} (E wide): up to {@link #DIRECT_MAX_LENGTH} tokens straight
     * from the fused projection ({@link DirectAttention}), beyond it the tiled kernel on q, k and v
     * split out. Writes the heads' probabilities (H×L×L) when {@code probs} is not null.
     */
    private void attention(EncoderScratch s, int row0, int L, float[] probs) {
        BertConfig c = config();
        int E = c.hidden(), H = c.heads();
        if (L <= DIRECT_MAX_LENGTH) {
            DirectAttention.selfAttention(s.qkv, row0 * 3 * E, L, H, c.headDim(),
                kernel.spec().scaleFor(c.headDim()), s.context, row0 * E, probs, s.direct);
            return;
        }
        s.ensureSplit(L, E, H);
        split(s.qkv, row0 * 3 * E, L, E, s.q, s.k, s.v);
        AttentionShape shape = AttentionShape.self(L, H, c.headDim());
        kernel.forward(shape, s.q, s.k, s.v, RowMask.NONE, s.splitContext, probs != null ? s.lse : null,
            s.workspace);
        if (probs != null) {
            kernel.weights(shape, s.q, s.k, RowMask.NONE, s.lse, true, probs, s.workspace);
        }
        System.arraycopy(s.splitContext, 0, s.context, row0 * E, L * E);
    }

    /** Splits L×3E {@code [q | k | v]} rows from {@code offset} into three L×E arrays. */
    private static void split(float[] qkv, int offset, int L, int E, float[] q, float[] k, float[] v) {
        for (int i = 0; i < L; i++) {
            int src = offset + i * 3 * E, dst = i * E;
            System.arraycopy(qkv, src, q, dst, E);
            System.arraycopy(qkv, src + E, k, dst, E);
            System.arraycopy(qkv, src + 2 * E, v, dst, E);
        }
    }

    /**
     * The prepared projections. Threads that start together may each prepare them once; they get
     * equal values, and the last one written is kept.
     */
    private Prepared prepared() {
        Prepared p = prepared;
        if (p == null) {
            p = new Prepared(weights);
            prepared = p;
        }
        return p;
    }

    /** Every layer's projections, each weight prepared once. */
    private static final class Prepared {
        final PreparedLayer[] layers;

        Prepared(BertWeights weights) {
            BertConfig c = weights.config();
            layers = new PreparedLayer[c.layers()];
            for (int n = 0; n < layers.length; n++) {
                layers[n] = new PreparedLayer(weights.layer(n), c.hidden(), c.intermediate());
            }
        }
    }

    /** One layer's projections: q, k and v stacked into one 3E×E weight. */
    private static final class PreparedLayer {
        final BertWeights.Layer w;
        final LinearWeight qkv;
        final LinearWeight attentionOutput;
        final LinearWeight intermediate;
        final LinearWeight output;

        PreparedLayer(BertWeights.Layer w, int E, int F) {
            this.w = w;
            qkv = LinearWeight.of(concat(w.queryWeight(), w.keyWeight(), w.valueWeight()), 3 * E, E,
                concat(w.queryBias(), w.keyBias(), w.valueBias()));
            attentionOutput = LinearWeight.of(w.attentionOutputWeight(), E, E, w.attentionOutputBias());
            intermediate = LinearWeight.of(w.intermediateWeight(), F, E, w.intermediateBias());
            output = LinearWeight.of(w.outputWeight(), E, F, w.outputBias());
        }

        private static float[] concat(float[] a, float[] b, float[] c) {
            float[] out = new float[a.length + b.length + c.length];
            System.arraycopy(a, 0, out, 0, a.length);
            System.arraycopy(b, 0, out, a.length, b.length);
            System.arraycopy(c, 0, out, a.length + b.length, c.length);
            return out;
        }
    }

    /**
     * One thread's buffers: the projections' outputs and the context for up to {@link #capacity}
     * stacked tokens; for the tiled kernel, one sequence's q, k, v, context and log-sum-exp exactly
     * L rows long (it takes whole arrays).
     */
    private static final class EncoderScratch {
        int capacity;
        int splitLength = -1;
        float[] qkv = new float[0];
        float[] q = new float[0];
        float[] k = new float[0];
        float[] v = new float[0];
        float[] context = new float[0];
        float[] splitContext = new float[0];
        float[] projected = new float[0];
        float[] hidden = new float[0];
        float[] lse = new float[0];
        final Workspace workspace = new Workspace();
        final DirectAttention.Workspace direct = new DirectAttention.Workspace();
        int width;
        int ffn;
        int heads;

        void ensure(int L, int E, int F, int H) {
            boolean sameModel = E == width && F == ffn && H == heads;
            if (!sameModel || L > capacity) {
                int n = sameModel ? Math.max(L, capacity) : L;
                qkv = new float[n * 3 * E];
                context = new float[n * E];
                projected = new float[n * E];
                hidden = new float[n * F];
                capacity = n;
                width = E;
                ffn = F;
                heads = H;
                splitLength = -1;
            }
        }

        void ensureSplit(int L, int E, int H) {
            if (L != splitLength) {
                q = new float[L * E];
                k = new float[L * E];
                v = new float[L * E];
                splitContext = new float[L * E];
                lse = new float[L * H];
                splitLength = L;
            }
        }
    }
}

package io.sparkattention.bert;

import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.LinearWeight;

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
 * not depend on what else is being encoded. The work is done by the blocks, laid out as Hugging
 * Face's {@code modeling_bert.py}: {@link BertEmbeddings}, then per layer {@link BertLayer}
 * ({@link BertSelfAttention}, {@link BertFeedForward}).
 *
 * <p>Immutable and thread-safe. The projections are prepared (packed for the JVM's projection
 * kernel, {@link LinearWeight}) once per JVM on first use and shared by every thread; the
 * prepared form is not serialized. Each thread reuses its own scratch across sequences.
 */
public final class BertEncoder implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Per-thread buffers, grown to the longest sequence seen; shared by all encoders of the thread. */
    private static final ThreadLocal<EncoderScratch> SCRATCH = ThreadLocal.withInitial(EncoderScratch::new);

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
        return stacked(batch, config().layers());
    }

    /**
     * The hidden states after the embeddings and the first {@code layers} layers (0: the
     * embeddings' output), as {@link #forward(int[])} computes them: the frozen prefix of a
     * fine-tuned network.
     */
    float[] prefix(int[] ids, int layers) {
        checkIds(ids);
        float[] x = new float[ids.length * config().hidden()];
        encode(new int[][] {ids}, new int[] {0, ids.length}, x, layers, -1, null);
        return x;
    }

    /**
     * {@link #prefix(int[], int)} of several sequences, each bit for bit what the single-sequence
     * call gives it, stacked as {@link #forward(int[][])} stacks them.
     *
     * @throws IllegalArgumentException as {@link #forward(int[][])}
     */
    float[][] prefix(int[][] batch, int layers) {
        return stacked(batch, layers);
    }

    /** The states of each sequence after the embeddings and layers {@code [0, layers)}. */
    private float[][] stacked(int[][] batch, int layers) {
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
            > Integer.MAX_VALUE - 8 || !prepared().layers[0].rowsIndependent()) {
            for (int r = 0; r < batch.length; r++) {
                out[r] = new float[batch[r].length * config().hidden()];
                encode(new int[][] {batch[r]}, new int[] {0, batch[r].length}, out[r], layers, -1, null);
            }
            return out;
        }
        int E = config().hidden();
        int[] starts = new int[batch.length + 1];
        for (int r = 0; r < batch.length; r++) {
            starts[r + 1] = starts[r] + batch[r].length;
        }
        float[] x = new float[starts[batch.length] * E];
        encode(batch, starts, x, layers, -1, null);
        for (int r = 0; r < batch.length; r++) {
            out[r] = java.util.Arrays.copyOfRange(x, starts[r] * E, starts[r + 1] * E);
        }
        return out;
    }

    private float[] run(int[] ids, int attentionLayer, float[] headWeights) {
        float[] x = new float[ids.length * config().hidden()];
        encode(new int[][] {ids}, new int[] {0, ids.length}, x, config().layers(), attentionLayer, headWeights);
        return x;
    }

    /**
     * Encodes sequences stacked in x through the embeddings and layers {@code [0, layers)}:
     * sequence r holds rows {@code [starts[r], starts[r+1])}. The probabilities of layer
     * {@code attentionLayer} are written for a single sequence only.
     */
    private void encode(int[][] batch, int[] starts, float[] x, int layers, int attentionLayer, float[] headWeights) {
        BertConfig c = config();
        int M = starts[batch.length];
        if (M == 0) {
            return;
        }
        Prepared p = prepared();
        EncoderScratch s = SCRATCH.get();
        s.ensure(M, c.hidden(), c.intermediate());
        p.embeddings.forward(batch, starts, x);
        for (int n = 0; n < layers; n++) {
            p.layers[n].forward(x, starts, batch.length, s, n == attentionLayer ? headWeights : null);
        }
    }

    /**
     * The prepared projections. Threads that start together may each prepare them once; they get
     * equal values, and the last one written is kept.
     */
    private Prepared prepared() {
        Prepared p = prepared;
        if (p == null) {
            p = new Prepared(weights, kernel);
            prepared = p;
        }
        return p;
    }

    /** The blocks, each weight prepared once. */
    private static final class Prepared {
        final BertEmbeddings embeddings;
        final BertLayer[] layers;

        Prepared(BertWeights weights, FlashAttention kernel) {
            BertConfig c = weights.config();
            embeddings = new BertEmbeddings(weights, null);
            layers = new BertLayer[c.layers()];
            for (int n = 0; n < layers.length; n++) {
                layers[n] = new BertLayer(c, weights.layer(n), kernel, n, null);
            }
        }
    }
}

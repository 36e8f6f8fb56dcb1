package io.sparkattention.gpt;

import io.sparkattention.kernel.LinearKernel;

import java.io.Serializable;
import java.util.Objects;

/**
 * A GPT-2-family causal language model (Hugging Face's {@code GPT2LMHeadModel} in eval mode) over
 * rows of token ids, in float32 with float64 log-softmax sums: logits, each token's
 * log-probability, attention probabilities and generation with a KV cache.
 * <pre>
 *   x = wte[ids] + wpe[0..L)                                            L×E
 *   per layer (GptBlock, pre-LN):
 *     x = x + attn(LN(x; ln_1))·W_proj + b_proj                          causal, fused QKV, H heads
 *     x = x + gelu_new(LN(x; ln_2)·W_fc + b_fc)·W_mproj + b_mproj        via L×F
 *   logits = LN(x; ln_f)·wteᵀ                                           L×V (lm_head.weightᵀ when untied)
 * </pre>
 * Each row attends over its own tokens only: nothing is padded, so a row's numbers do not depend
 * on the rows it is computed with. Rows stack into one call of each projection when the projection
 * kernel computes rows independently ({@link io.sparkattention.kernel.LinearWeight#rowsIndependent()}),
 * and run one at a time otherwise.
 *
 * <p>Immutable and thread-safe. The projections are prepared once per JVM on first use and shared by
 * every thread ({@link GptStack}); the prepared form is not serialized. Each thread reuses its own
 * scratch across calls.
 */
public final class GptDecoder implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Per-thread buffers, grown to the most tokens seen; shared by all decoders of the thread. */
    private static final ThreadLocal<GptScratch> SCRATCH = ThreadLocal.withInitial(GptScratch::new);

    private final GptWeights weights;
    /** The projection kernel's name, or null for the JVM's ({@link LinearKernel#get()}). */
    private final String linearKernel;
    private transient volatile GptStack prepared;

    /** A decoder whose projections run on the JVM's projection kernel. */
    public GptDecoder(GptWeights weights) {
        this(weights, null);
    }

    /**
     * A decoder whose projections run on a named kernel ({@link LinearKernel#named}: {@code vector},
     * {@code blas}), for side-by-side tests and benchmarks; null for the JVM's.
     */
    public GptDecoder(GptWeights weights, String linearKernel) {
        this.weights = Objects.requireNonNull(weights, "weights");
        if (linearKernel != null) {
            LinearKernel.named(linearKernel);
        }
        this.linearKernel = linearKernel;
    }

    public GptConfig config() {
        return weights.config();
    }

    /** The plain tensors (for saving). */
    public GptWeights weights() {
        return weights;
    }

    /**
     * The logits of every position of one row.
     *
     * @return L×V row-major: row t scores the token after ids[0..t]; empty for L = 0
     * @throws IllegalArgumentException naming the position of an id outside [0, vocabSize), or when
     *                                  L exceeds positions
     */
    public float[] logits(int[] ids) {
        checkIds(ids, "");
        checkLength(ids, "");
        GptConfig c = config();
        int L = ids.length;
        if ((long) L * c.vocabSize() > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException(L + "×" + c.vocabSize() + " logits do not fit in one array");
        }
        float[] out = new float[L * c.vocabSize()];
        if (L > 0) {
            GptScratch s = hidden(ids, -1, null);
            prepared().head.apply(s.x, L, out);
        }
        return out;
    }

    /**
     * The natural-log probability of each token given the ones before it: {@code L − 1} values,
     * value t − 1 for ids[t]. A row longer than {@link GptConfig#positions()} is scored by Hugging
     * Face's sliding-window recipe (windows of {@code positions} tokens, {@code stride} apart, every
     * token scored once with the context its window holds; {@link GptScorer}).
     *
     * @param stride the windows' step for rows longer than positions, in [1, positions − 1]
     * @return empty for L ≤ 1
     * @throws IllegalArgumentException naming the position of an id outside [0, vocabSize), or a
     *                                  stride out of range
     */
    public double[] tokenLogProbs(int[] ids, int stride) {
        checkIds(ids, "");
        checkStride(ids, stride, "");
        return GptScorer.score(prepared(), new int[][] {ids}, stride, SCRATCH.get())[0];
    }

    /**
     * {@link #tokenLogProbs(int[], int)} of several rows, each bit for bit what it gets alone,
     * stacked through the projections when the kernel's rows are independent.
     *
     * @throws IllegalArgumentException as the single-row call, naming the row (0-based)
     */
    public double[][] tokenLogProbs(int[][] batch, int stride) {
        Objects.requireNonNull(batch, "batch");
        for (int r = 0; r < batch.length; r++) {
            checkIds(batch[r], "row " + r + ": ");
            checkStride(batch[r], stride, "row " + r + ": ");
        }
        return GptScorer.score(prepared(), batch, stride, SCRATCH.get());
    }

    /**
     * Block {@code layer}'s causal attention probabilities over one row.
     *
     * @return heads×L×L, {@code [h][query][key]}, 0 above the diagonal
     * @throws IllegalArgumentException as {@link #logits}, or for a layer outside [0, layers)
     */
    public float[] attentionProbabilities(int[] ids, int layer) {
        checkIds(ids, "");
        checkLength(ids, "");
        GptConfig c = config();
        if (layer < 0 || layer >= c.layers()) {
            throw new IllegalArgumentException("attention layer " + layer + " outside [0, " + c.layers() + ")");
        }
        long L = ids.length;
        if (c.heads() * L * L > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException(c.heads() + "×" + L + "×" + L + " probabilities do not fit in one"
                + " array");
        }
        float[] probs = new float[(int) (c.heads() * L * L)];
        if (L > 0) {
            hidden(ids, layer, probs);
        }
        return probs;
    }

    /**
     * Continues each prompt: its new ids only, at most {@code maxNewTokens}, ending with
     * {@code eosId} when the row drew it. Each row keeps its keys and values per layer as they grow
     * (a KV cache, memory ∝ the row's length) and each new token is one query over it; the active
     * rows go through the projections together. A row's ids depend on its prompt, its key and the
     * settings alone, not on the rows sharing the call nor their order: sampling draws from a
     * counter-based generator keyed by (seed, step, row key) ({@link TokenSampler}).
     *
     * @param prompts  rows of at least one id each
     * @param rowKeys  one key per prompt (a row id), keying its draws
     * @param settings how to choose each token
     * @throws IllegalArgumentException naming the row (0-based) of an empty prompt or an id outside
     *                                  [0, vocabSize), or whose length plus maxNewTokens exceeds the
     *                                  positions without {@code truncatePrompt}, naming the lengths;
     *                                  or an eosId outside the vocabulary
     */
    public int[][] generate(int[][] prompts, long[] rowKeys, GptGeneration settings) {
        return generate(prompts, rowKeys, settings, null);
    }

    /** {@link #generate(int[][], long[], GptGeneration)}, handing each step's logits to {@code listener}. */
    int[][] generate(int[][] prompts, long[] rowKeys, GptGeneration settings, GptGenerator.StepLogits listener) {
        Objects.requireNonNull(prompts, "prompts");
        Objects.requireNonNull(rowKeys, "rowKeys");
        Objects.requireNonNull(settings, "settings");
        GptConfig c = config();
        if (rowKeys.length != prompts.length) {
            throw new IllegalArgumentException(rowKeys.length + " row keys for " + prompts.length + " prompts");
        }
        if (settings.eosId() >= c.vocabSize()) {
            throw new IllegalArgumentException("eosId " + settings.eosId() + " is outside [0, " + c.vocabSize()
                + ")");
        }
        int room = c.positions() - settings.maxNewTokens();
        int[][] rows = new int[prompts.length][];
        for (int r = 0; r < prompts.length; r++) {
            int[] p = prompts[r];
            checkIds(p, "prompt " + r + ": ");
            if (p.length == 0) {
                throw new IllegalArgumentException("prompt " + r + " is empty: generation needs at least one token");
            }
            if (p.length > room && !(settings.truncatePrompt() && room >= 1)) {
                throw new IllegalArgumentException("prompt " + r + " of " + p.length + " tokens plus maxNewTokens "
                    + settings.maxNewTokens() + " exceeds the " + c.positions() + " positions of the model"
                    + (room < 1 ? " (maxNewTokens leaves no room for a prompt)"
                    : " (truncatePrompt keeps its last " + room + " tokens)"));
            }
            rows[r] = p.length > room ? java.util.Arrays.copyOfRange(p, p.length - room, p.length) : p;
        }
        GptScratch s = SCRATCH.get();
        return GptGenerator.generate(prepared(), rows, rowKeys, settings, s, s.sampler, listener);
    }

    /** One row through the blocks and ln_f: this thread's scratch, whose x holds the L×E states. */
    private GptScratch hidden(int[] ids, int layer, float[] probs) {
        GptStack st = prepared();
        GptConfig c = config();
        GptScratch s = SCRATCH.get();
        s.ensure(ids.length, c.hidden(), c.inner());
        st.embed(ids, 0, ids.length, 0, s.x, 0);
        st.forward(new int[] {0, ids.length}, 1, s, layer, probs);
        return s;
    }

    private void checkIds(int[] ids, String where) {
        Objects.requireNonNull(ids, where.isEmpty() ? "ids" : where + "ids");
        int V = config().vocabSize();
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] < 0 || ids[i] >= V) {
                throw new IllegalArgumentException(where + "token id " + ids[i] + " at position " + i
                    + " is outside [0, " + V + ")");
            }
        }
    }

    private void checkLength(int[] ids, String where) {
        if (ids.length > config().positions()) {
            throw new IllegalArgumentException(where + "row of " + ids.length + " tokens is longer than the "
                + config().positions() + " positions of the model");
        }
    }

    private void checkStride(int[] ids, int stride, String where) {
        int P = config().positions();
        if (stride < 1) {
            throw new IllegalArgumentException("stride must be >= 1, got " + stride);
        }
        if (ids.length > P && stride >= P) {
            throw new IllegalArgumentException(where + "a row of " + ids.length + " tokens, longer than the " + P
                + " positions, needs a stride in [1, " + (P - 1) + "] so that every token is scored, got "
                + stride);
        }
    }

    /**
     * The prepared blocks. Threads that start together may each prepare them once; they get equal
     * values, and the last one written is kept.
     */
    GptStack prepared() {
        GptStack p = prepared;
        if (p == null) {
            p = new GptStack(weights, linearKernel == null ? null : LinearKernel.named(linearKernel));
            prepared = p;
        }
        return p;
    }
}

package io.sparkattention.gpt;

import io.sparkattention.bert.DropoutMask;
import io.sparkattention.bert.EncoderMath;
import io.sparkattention.bert.LayerNormRecord;
import io.sparkattention.kernel.WeightGradient;
import io.sparkattention.nn.GradientSums;
import io.sparkattention.nn.SpareBuffers;
import io.sparkattention.nn.TrainingEvaluator;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A {@link GptTrainingNetwork} at one parameter vector: the weighted language-modelling losses of
 * runs of {@link TokenBlock}s and their gradient. Per run of blocks (stacked through every
 * projection, {@value #STACK_TOKENS} tokens a pass, when the projection kernel's rows are
 * independent; one block a pass otherwise, so a block's numbers are its own either way):
 * <pre>
 *   x = M_embd∘(wte[ids] + wpe[0..L))                      per block, M×E stacked
 *   x = block_N(… block_0(x))                               {@link GptTrainingBlock}, records kept
 *   h = LN(x; ln_f);  nll_r = Σ_t lse(h_t·wteᵀ) − z_y        {@link GptLmHead}, HEAD_ROWS rows a chunk
 *   backward: dh (head) → LN_f' → blocks top to bottom → dx∘M_embd scattered into wte rows and wpe rows
 * </pre>
 * wte's gradient is the head's product plus the embedding's scatter-add. Gradients are summed in
 * float32 in one pending vector (the attention's in {@code nn.Linear} layout in each layer's
 * record, folded into the Conv1D layout at a flush) until {@link #flushInto}. Dropout (training
 * binds with p &gt; 0): {@link DropoutMask} keyed by (seed, step, block key, site, element), sites
 * {@link DropoutMask#EMBEDDINGS} and per layer n {@code DropoutMask.site(n, kind)}. Released
 * ({@link #release}), it leaves its pending gradient, records and scratch to the next evaluator
 * of the network ({@link SpareBuffers}). Not thread-safe.
 */
final class GptTrainingEvaluator implements TrainingEvaluator<TokenBlock> {

    /** Most tokens stacked into one pass: bounds the records at STACK_TOKENS rows (one longer block runs alone). */
    static final int STACK_TOKENS = 2048;

    private static final EncoderMath NORM = EncoderMath.get();

    /** The working buffers released evaluators leave to the next one of the same network (on any thread). */
    private static final SpareBuffers<Spare> SPARE = new SpareBuffers<>();

    private final GptConfig config;
    private final boolean training;
    private final long seed;
    private final long step;
    private final double p;
    private final boolean stack;
    /** The network's prepared weights at this vector, shared with the other evaluators bound to it. */
    private final GptTrainingWeights prepared;
    private final GptTrainingBlock[] blocks;
    private final GptLmHead head;
    private final GptTrainingNetwork net;
    private final GptTrainingRecord.Layer[] records;
    private final LayerNormRecord finalNorm;
    private final GptTrainingRecord.Scratch scratch;
    private final float[] pending;
    private boolean released;
    /** Blocks added since the last flush, and the most positions one of them used (wpe's touched rows). */
    private int pendingBlocks;
    private int pendingPositions;

    GptTrainingEvaluator(GptTrainingNetwork net, GptTrainingWeights weights, boolean training, long seed, long step) {
        this.config = net.config();
        this.training = training;
        this.seed = seed;
        this.step = step;
        this.p = net.dropout();
        this.prepared = weights;
        this.blocks = weights.blocks;
        this.net = net;
        Spare spare = SPARE.take(net);
        if (spare == null) {
            GptTrainingRecord.Layer[] made = new GptTrainingRecord.Layer[blocks.length];
            for (int n = 0; n < blocks.length; n++) {
                made[n] = new GptTrainingRecord.Layer(GptTrainingBlock.attentionGradientSize(config.hidden()));
            }
            spare = new Spare(made, new LayerNormRecord(),
                new GptTrainingRecord.Scratch(new WeightGradient(weights.linear)), new float[net.parameterCount()]);
        }
        this.records = spare.records;
        this.finalNorm = spare.finalNorm;
        this.scratch = spare.scratch;
        this.pending = spare.pending;
        this.head = new GptLmHead(weights);
        this.stack = weights.rowsIndependent();
    }

    /** @throws IllegalArgumentException naming the block when its length or weight is out of range */
    @Override
    public double weight(TokenBlock block) {
        checkShape(block);
        return block.weight() * block.predictedTokens();
    }

    @Override
    public double add(List<TokenBlock> run) {
        checkLive();
        checkRun(run);
        return passes(run, true);
    }

    @Override
    public double loss(List<TokenBlock> run) {
        checkLive();
        checkRun(run);
        return passes(run, false);
    }

    @Override
    public void flushInto(GradientSums sums) {
        Objects.requireNonNull(sums, "sums");
        checkLive();
        if (pendingBlocks == 0) {
            return;
        }
        for (int n = 0; n < blocks.length; n++) {
            blocks[n].foldAttentionGradient(records[n], pending);
        }
        int E = config.hidden();
        int wpeEnd = prepared.wpeOffset + config.positions() * E;
        sums.addAndClear(pending, 0, prepared.wpeOffset);
        for (int row = 0; row < pendingPositions; row++) {
            sums.addRowAndClear(0, row, pending);
        }
        sums.addAndClear(pending, wpeEnd, pending.length);
        pendingBlocks = 0;
        pendingPositions = 0;
    }

    @Override
    public void discardPending() {
        checkLive();
        clearPending();
    }

    /**
     * {@inheritDoc} Its pending gradient (zeroed), records and scratch go to the next
     * evaluator of the network; a second release does nothing.
     */
    @Override
    public void release() {
        if (!released) {
            released = true;
            clearPending();
            SPARE.give(net, new Spare(records, finalNorm, scratch, pending));
        }
    }

    private void checkLive() {
        if (released) {
            throw new IllegalStateException("the evaluator was released: its buffers are another evaluator's now");
        }
    }

    private void clearPending() {
        if (pendingBlocks > 0) {
            Arrays.fill(pending, 0f);
            for (GptTrainingRecord.Layer r : records) {
                Arrays.fill(r.attentionGradient, 0f);
            }
            pendingBlocks = 0;
            pendingPositions = 0;
        }
    }

    /** Every block checked before any runs, so that a bad block leaves nothing half-added. */
    private void checkRun(List<TokenBlock> run) {
        Objects.requireNonNull(run, "blocks");
        int V = config.vocabSize();
        for (TokenBlock b : run) {
            checkShape(b);
            int[] ids = b.ids();
            for (int i = 0; i < ids.length; i++) {
                if (ids[i] < 0 || ids[i] >= V) {
                    throw new IllegalArgumentException("block " + b.key() + ": token id " + ids[i] + " at position " + i
                        + " is outside [0, " + V + ")");
                }
            }
        }
    }

    /** The block's length in [1, positions] and its weight finite and ≥ 0. */
    private void checkShape(TokenBlock b) {
        Objects.requireNonNull(b, "block");
        int[] ids = Objects.requireNonNull(b.ids(), "ids of block " + b.key());
        if (ids.length < 1 || ids.length > config.positions()) {
            throw new IllegalArgumentException("block " + b.key() + " has " + ids.length + " tokens, expected 1 to "
                + config.positions() + " (the model's positions)");
        }
        if (!(b.weight() >= 0) || Double.isInfinite(b.weight())) {
            throw new IllegalArgumentException("block " + b.key() + ": weight must be finite and >= 0, got "
                + b.weight());
        }
    }

    /** The run in passes of stacked blocks (those with a weight and a predicted token); Σ weight·nll in block order. */
    private double passes(List<TokenBlock> run, boolean backward) {
        TokenBlock[] live = run.stream().filter(b -> b.weight() > 0 && b.ids().length > 1).toArray(TokenBlock[]::new);
        double total = 0;
        int g = 0;
        while (g < live.length) {
            int end = g + 1, tokens = live[g].ids().length;
            while (stack && end < live.length && tokens + live[end].ids().length <= STACK_TOKENS) {
                tokens += live[end].ids().length;
                end++;
            }
            double[] nll = pass(Arrays.copyOfRange(live, g, end), tokens, backward);
            for (int r = 0; r < nll.length; r++) {
                total += live[g + r].weight() * nll[r];  // block by block: the sum's bits do not depend on the passes
            }
            g = end;
        }
        return total;
    }

    /**
     * One stacked pass of {@code group} (M tokens in all): forward, and the backward when asked.
     *
     * @return each block's summed −log-likelihood
     */
    private double[] pass(TokenBlock[] group, int M, boolean backward) {
        int count = group.length, E = config.hidden();
        int[] starts = new int[count + 1];
        int[][] ids = new int[count][];
        double[] weights = new double[count];
        for (int r = 0; r < count; r++) {
            ids[r] = group[r].ids();
            weights[r] = group[r].weight();
            starts[r + 1] = starts[r] + ids[r].length;
        }
        ensure(M);
        DropoutMask[][][] masks = backward && training && p > 0 ? masks(group) : null;
        float[] x = scratch.x;
        for (int r = 0; r < count; r++) {
            GptStack.embed(prepared.tokenEmbedding, prepared.positionEmbedding, E, ids[r], 0, ids[r].length, 0, x, starts[r]);
            if (masks != null) {
                masks[blocks.length][r][0].apply(x, starts[r] * E, ids[r].length * E, 0);
            }
        }
        for (int n = 0; n < blocks.length; n++) {
            blocks[n].forward(x, starts, count, records[n], scratch, masks == null ? null : masks[n]);
        }
        NORM.layerNormKeeping(x, null, M, E, prepared.finalNormWeight, prepared.finalNormBias, config.layerNormEps(),
            finalNorm.xhat(), finalNorm.rstd());
        double[] nll = new double[count];
        if (backward) {
            pendingBlocks++;  // before anything is added, so that discardPending clears a pass that failed part-way
            for (int[] row : ids) {
                pendingPositions = Math.max(pendingPositions, row.length);
            }
        }
        head.run(x, ids, weights, starts, count, nll, backward ? scratch.dNormed : null, pending, prepared.wteOffset,
            scratch.weightGradient);
        if (backward) {
            NORM.layerNormGradient(scratch.dNormed, finalNorm.xhat(), finalNorm.rstd(), M, E, prepared.finalNormWeight,
                x, pending, prepared.finalNormWeightOffset, prepared.finalNormBiasOffset, finalNorm.sums());
            for (int n = blocks.length - 1; n >= 0; n--) {
                blocks[n].backward(x, starts, count, records[n], scratch, masks == null ? null : masks[n], pending);
            }
            for (int r = 0; r < count; r++) {
                if (masks != null) {
                    masks[blocks.length][r][0].apply(x, starts[r] * E, ids[r].length * E, 0);
                }
                scatter(ids[r], x, starts[r] * E);
            }
        }
        return nll;
    }

    /** The embedding's backward of one block: its rows of dx added into wte's rows of its ids and wpe's rows 0 … L − 1. */
    private void scatter(int[] ids, float[] dx, int from) {
        int E = config.hidden();
        for (int i = 0; i < ids.length; i++) {
            int o = from + i * E, t = prepared.wteOffset + ids[i] * E, q = prepared.wpeOffset + i * E;
            for (int j = 0; j < E; j++) {
                pending[t + j] += dx[o + j];
                pending[q + j] += dx[o + j];
            }
        }
    }

    /**
     * The group's masks: {@code [n][r][kind]} for layer n of block r ({@link DropoutMask#ATTENTION_PROBS},
     * {@link DropoutMask#ATTENTION_OUTPUT}, {@link DropoutMask#FEED_FORWARD_OUTPUT}), and
     * {@code [layers][r][0]} the embeddings'.
     */
    private DropoutMask[][][] masks(TokenBlock[] group) {
        DropoutMask[][][] m = new DropoutMask[blocks.length + 1][group.length][];
        for (int r = 0; r < group.length; r++) {
            long key = group[r].key();
            for (int n = 0; n < blocks.length; n++) {
                m[n][r] = new DropoutMask[3];
                for (int kind = 0; kind < 3; kind++) {
                    m[n][r][kind] = DropoutMask.of(seed, step, key, DropoutMask.site(n, kind), p);
                }
            }
            m[blocks.length][r] = new DropoutMask[] {DropoutMask.of(seed, step, key, DropoutMask.EMBEDDINGS, p)};
        }
        return m;
    }

    private void ensure(int M) {
        int E = config.hidden(), F = config.inner();
        for (GptTrainingRecord.Layer r : records) {
            r.ensure(M, E, F);
        }
        finalNorm.ensure(M, E);
        scratch.ensure(M, E, F);
    }

    /** An evaluator's working buffers, kept for the next evaluator of the network. */
    private record Spare(GptTrainingRecord.Layer[] records, LayerNormRecord finalNorm, GptTrainingRecord.Scratch scratch,
                         float[] pending) {
    }
}

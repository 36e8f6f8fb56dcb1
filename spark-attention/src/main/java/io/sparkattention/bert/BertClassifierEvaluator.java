package io.sparkattention.bert;

import io.sparkattention.nn.GradientLayout;
import io.sparkattention.nn.GradientSums;
import io.sparkattention.nn.SpareBuffers;
import io.sparkattention.nn.TrainingEvaluator;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One {@link BertClassifierNetwork} evaluated at one trainable parameter vector: the weighted
 * losses of runs of rows with their gradient, and logits. Made by {@link BertClassifierNetwork#bind}.
 * It runs on the trainable blocks' prepared weights (shared with the evaluators bound to the same
 * values, {@link BertClassifierNetwork#prepared}) over its own scratch (activation records grown
 * to the most tokens one pass has held), so rows make little garbage; {@link #release released},
 * it leaves its pending gradient, records and scratch to the next evaluator of the network
 * ({@link SpareBuffers}), so a training step does not allocate them anew. Not thread-safe: one per
 * thread.
 *
 * <p><b>Stacked runs.</b> {@link #add(List)} runs a run's rows through the trainable part
 * together ({@link ClassifierPasses}): consecutive rows of up to {@value #STACK_TOKENS} tokens in
 * all are stacked, so every projection — forward, input gradient {@code dX = dY·W} and weight
 * gradient {@code dW += dYᵀ·X} — is one product over their tokens, with the weights read once for
 * all of them; attention, pooling and the head stay per row. On a projection kernel whose rows are
 * independent (the Vector API kernel; BLAS where
 * {@link io.sparkattention.kernel.LinearWeight#rowsIndependent()}) a row's loss and activations
 * are bit for bit those of the row alone; elsewhere rows run one at a time, as
 * {@link BertEncoder#forward(int[][])} runs them. Dropout masks are each row's own, keyed by
 * (seed, step, row key, site, element).
 *
 * <p><b>Gradients</b> are summed in float32 in one pending vector, in the order rows are added
 * (within a stacked pass a weight gradient is one product over the pass's rows), and moved into
 * the caller's float64 sums by a flush ({@link #flushInto(GradientSums)}, or
 * {@link #flushInto(double[])} for a flat vector): the flush pays a read and write of every
 * trainable parameter once per run, and of the word embedding only the rows of the pending rows'
 * ids. {@link #accumulate} is one row added and flushed at once.
 */
public final class BertClassifierEvaluator implements TrainingEvaluator<BertClassifierRow> {

    /**
     * Most tokens stacked into one pass (a longer row is a pass of its own). The pass's activation
     * records grow with it (for all-MiniLM-L6-v2 training every layer, about 180 kB a token: 512
     * tokens take about 90 MB per thread). On MiniLM, one thread, a 1,568-token run took the same
     * time in passes of up to 256 or 512 tokens as in one pass, and 23% more in passes of up to 64
     * ({@code FineTuneStackSpeed}).
     */
    static final int STACK_TOKENS = 512;

    /** The working buffers released evaluators leave to the next one of the same network (on any thread). */
    private static final SpareBuffers<Spare> SPARE = new SpareBuffers<>();

    private final BertClassifierNetwork net;
    private final ClassifierPasses passes;
    private final RowStack stack;
    private final PendingGradient pending;
    private final long seed;
    private final long step;
    private final double p;
    /** The sites that drop in a training pass (absolute numbers), or null when nothing drops. */
    private final int[] dropoutSites;
    private boolean released;

    BertClassifierEvaluator(BertClassifierNetwork net, float[] theta, boolean training, long seed, long step) {
        this.net = net;
        this.seed = seed;
        this.step = step;
        this.p = net.settings().dropout();
        BertConfig c = net.config();
        Spare spare = SPARE.take(net);
        this.passes = new ClassifierPasses(net, net.prepared(theta), spare == null ? null : spare.passes);
        this.stack = new RowStack(c.layers());
        this.pending = spare != null ? spare.pending
            : new PendingGradient(net.parameterCount(), passes.wordOffset(), c.vocabSize(), c.hidden());
        this.dropoutSites = training && p > 0 ? sites(net) : null;
    }

    /** The dropout sites of the trainable part: the embeddings' (when they train), each trainable layer's three, the pooled vector. */
    private static int[] sites(BertClassifierNetwork net) {
        List<Integer> s = new ArrayList<>();
        if (net.embeddingsTrainable()) {
            s.add(DropoutMask.EMBEDDINGS);
        }
        for (int n = net.firstTrainableLayer(); n < net.config().layers(); n++) {
            s.add(DropoutMask.site(n, DropoutMask.ATTENTION_PROBS));
            s.add(DropoutMask.site(n, DropoutMask.ATTENTION_OUTPUT));
            s.add(DropoutMask.site(n, DropoutMask.FEED_FORWARD_OUTPUT));
        }
        s.add(DropoutMask.POOLED);
        return s.stream().mapToInt(Integer::intValue).toArray();
    }

    /** The network this evaluates. */
    public BertClassifierNetwork network() {
        return net;
    }

    /**
     * The row's weight, its share of a step's denominator ({@code Σ wᵢ·CEᵢ / Σ wᵢ}).
     *
     * @throws IllegalArgumentException naming the row's key when the weight is negative or not finite
     */
    @Override
    public double weight(BertClassifierRow row) {
        Objects.requireNonNull(row, "row");
        checkWeight(row.weight(), row.key());
        return row.weight();
    }

    /**
     * Adds each row's {@code weight·∂CE(logits, label)/∂θ} into the pending sums and returns
     * Σ weight·CE over the rows, in row order; rows of weight 0 add nothing. The rows are checked
     * before any is run, so a run that does not fit leaves nothing pending.
     *
     * @throws IllegalArgumentException naming the row (by its key) and what does not fit: an id
     *                                  with its position, the length, the label, the weight, the
     *                                  frozen states' length
     */
    @Override
    public double add(List<BertClassifierRow> rows) {
        checkLive();
        return run(checked(rows), dropoutSites, true);
    }

    /**
     * Σ weight·CE over the rows in evaluation mode (no dropout, whatever the binding), no
     * gradient; the rows stacked as {@link #add(List)} stacks them.
     *
     * @throws IllegalArgumentException as {@link #add(List)}
     */
    @Override
    public double loss(List<BertClassifierRow> rows) {
        checkLive();
        return run(checked(rows), null, false);
    }

    /**
     * Σ weight·CE over checked rows of positive weight, pass by pass, with {@code sites}' dropout
     * (null: none); with their gradient added into the pending sums when {@code gradient}.
     */
    private double run(List<BertClassifierRow> rows, int[] sites, boolean gradient) {
        double sum = 0;
        for (int from = 0, to; from < rows.size(); from = to) {
            to = passEnd(rows, from);
            stack.set(rows, from, to, seed, step, p, sites);
            try {
                passes.forward(stack);
                for (int r = 0; r < stack.count(); r++) {
                    BertClassifierRow row = rows.get(from + r);
                    sum += row.weight() * passes.head().lossAndGradient(passes.logits(r), row.label(), row.weight(),
                        passes.dLogits(r));
                }
                if (gradient) {
                    // Marked before the backward writes into the pending sums, so that
                    // discardPending clears a pass that failed part-way.
                    for (int r = 0; r < stack.count(); r++) {
                        pending.touch(stack.ids(r));
                    }
                    passes.backward(stack, pending.values);
                }
            } finally {
                stack.clear();
            }
        }
        return sum;
    }

    /** Where the pass that starts at row {@code from} ends: up to {@value #STACK_TOKENS} tokens, one row when rows are not independent. */
    private int passEnd(List<BertClassifierRow> rows, int from) {
        int to = from + 1;
        if (!passes.rowsIndependent()) {
            return to;
        }
        long tokens = rows.get(from).length();
        while (to < rows.size() && tokens + rows.get(to).length() <= STACK_TOKENS) {
            tokens += rows.get(to).length();
            to++;
        }
        return to;
    }

    /** The rows checked, without those of weight 0. */
    private List<BertClassifierRow> checked(List<BertClassifierRow> rows) {
        Objects.requireNonNull(rows, "rows");
        List<BertClassifierRow> live = new ArrayList<>(rows.size());
        for (int i = 0; i < rows.size(); i++) {
            BertClassifierRow row = Objects.requireNonNull(rows.get(i), "row " + i + " of the run is null");
            check(row);
            if (row.weight() > 0) {
                live.add(row);
            }
        }
        return live;
    }

    private void check(BertClassifierRow row) {
        try {
            checkRow(row.ids(), row.frozenStates());
            if (row.label() < 0 || row.label() >= net.numClasses()) {
                throw new IllegalArgumentException("label " + row.label() + " is not a class in [0, "
                    + net.numClasses() + ")");
            }
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new IllegalArgumentException("row key " + row.key() + ": " + e.getMessage(), e);
        }
        checkWeight(row.weight(), row.key());
    }

    private static void checkWeight(double weight, long key) {
        if (!(weight >= 0) || Double.isInfinite(weight)) {
            throw new IllegalArgumentException("row key " + key + ": row weight must be finite and >= 0, got "
                + weight);
        }
    }

    private void checkRow(int[] ids, float[] frozenStates) {
        net.checkIds(ids);
        if (frozenStates != null) {
            if (!net.hasFrozenPrefix()) {
                throw new IllegalArgumentException("frozen states given, but the embeddings train: pass null");
            }
            int E = net.config().hidden();
            if (frozenStates.length != ids.length * E) {
                throw new IllegalArgumentException("frozen states have " + frozenStates.length + " values, expected "
                    + ids.length + "×" + E + " for a row of " + ids.length + " tokens");
            }
        }
    }

    /**
     * Adds the pending sums into {@code sums} and clears them; nothing when no row is pending.
     * {@code sums} follows this network's layout ({@link GradientLayout#of}): the word
     * embedding, when it trains, is its row-sparse tensor 0 and gets the touched rows only.
     */
    @Override
    public void flushInto(GradientSums sums) {
        Objects.requireNonNull(sums, "sums");
        checkLive();
        pending.flushInto(sums);
    }

    /** Drops the pending sums unflushed (a caller's run of rows that failed part-way). */
    @Override
    public void discardPending() {
        checkLive();
        pending.discard();
    }

    /**
     * {@inheritDoc} Its pending gradient (zeroed), records and scratch go to the next
     * evaluator of the network; a second release does nothing.
     */
    @Override
    public void release() {
        if (!released) {
            released = true;
            pending.discard();
            SPARE.give(net, new Spare(passes.buffers(), pending));
        }
    }

    private void checkLive() {
        if (released) {
            throw new IllegalStateException("the evaluator was released: its buffers are another evaluator's now");
        }
    }

    /**
     * One row's contribution to a step: adds {@code weight·∂CE(logits, label)/∂θ} into {@code grad}
     * and returns {@code weight·CE} ({@link #add(int[], float[], long, int, double)} then
     * {@link #flushInto(double[])}).
     *
     * @param grad {@link BertClassifierNetwork#parameterCount()} sums, added to
     * @throws IllegalArgumentException as {@link #add(int[], float[], long, int, double)}, or when
     *                                  grad has another length
     */
    public double accumulate(int[] ids, float[] frozenStates, long rowKey, int label, double weight, double[] grad) {
        checkGradient(grad);
        double loss = add(ids, frozenStates, rowKey, label, weight);
        flushInto(grad);
        return loss;
    }

    /**
     * One row {@link #add(List)}ed: its weighted gradient into the pending sums, weight·CE returned.
     *
     * @param ids          the row's token ids, 1 ≤ L ≤ maxPositions
     * @param frozenStates the row's {@link BertClassifierNetwork#frozenStates} (L×E), or null to
     *                     compute them here; must be null when the embeddings train
     * @param rowKey       the row's deterministic key (what its dropout is keyed by)
     * @param label        the class, in [0, K)
     * @param weight       finite and ≥ 0; 0 adds nothing
     * @throws IllegalArgumentException as {@link #add(List)}
     */
    public double add(int[] ids, float[] frozenStates, long rowKey, int label, double weight) {
        return add(List.of(new BertClassifierRow(ids, frozenStates, label, weight, rowKey)));
    }

    /**
     * Adds the pending sums into {@code grad}, the flat vector's float64 sums, and clears them;
     * nothing when no row is pending.
     *
     * @param grad {@link BertClassifierNetwork#parameterCount()} sums, added to
     * @throws IllegalArgumentException when grad has another length
     */
    public void flushInto(double[] grad) {
        checkGradient(grad);
        checkLive();
        pending.flushInto(grad);
    }

    private void checkGradient(double[] grad) {
        Objects.requireNonNull(grad, "gradient");
        if (grad.length != net.parameterCount()) {
            throw new IllegalArgumentException("gradient has " + grad.length + " values, expected "
                + net.parameterCount());
        }
    }

    /**
     * The K raw logits of one row, in eval mode (no dropout, whatever the binding).
     *
     * @param ids          as {@link #add(int[], float[], long, int, double)}
     * @param frozenStates as {@link #add(int[], float[], long, int, double)}
     * @param logitsOut    K values, written
     * @throws IllegalArgumentException as {@link #add(int[], float[], long, int, double)}, or when
     *                                  logitsOut is not K long
     */
    public void logits(int[] ids, float[] frozenStates, float[] logitsOut) {
        checkLive();
        checkRow(ids, frozenStates);
        Objects.requireNonNull(logitsOut, "logits");
        if (logitsOut.length != net.numClasses()) {
            throw new IllegalArgumentException("logits array has " + logitsOut.length + " values, expected "
                + net.numClasses() + " classes");
        }
        stack.set(List.of(new BertClassifierRow(ids, frozenStates, 0, 1, 0)), 0, 1, 0L, 0L, 0.0, null);
        try {
            passes.forward(stack);
            System.arraycopy(passes.logits(0), 0, logitsOut, 0, logitsOut.length);
        } finally {
            stack.clear();
        }
    }

    /** An evaluator's working buffers, kept for the next evaluator of the network. */
    private record Spare(ClassifierPasses.Buffers passes, PendingGradient pending) {
    }
}

package io.sparkattention.bert;

import io.sparkattention.nn.ClassifierHead;

/**
 * The trainable part of a {@link BertClassifierNetwork} at one parameter vector, run over the
 * rows of a {@link RowStack}: every projection of every trainable layer, forward and both
 * backward products, over all M stacked tokens at once; attention and the head
 * ({@link ClassifierHead}: pooling, linear, cross-entropy) per row.
 * <pre>
 *   forward:   x = embeddings(rows) | the rows' frozen states, stacked           M×E
 *              x = layer_n(x) for each trainable layer, each keeping its record  M×E
 *              per row r: pooled_r = dropout(pool(x_r));  z_r = pooled_r·Wᵀ + b    K
 *   backward:  per row r: dW += dz_r·pooled_rᵀ,  db += dz_r,  dx_r = pool'ᵀ·((Wᵀ·dz_r)∘M_r)
 *              dx = layer_n.backward(dx) top to bottom;  the embeddings' backward
 * </pre>
 * On a projection kernel whose rows are independent ({@link #rowsIndependent()}) each row's
 * activations, logits and input gradients are bit for bit those of the row alone; the weight
 * gradients are sums over the stacked rows. Runs on {@link ClassifierWeights} (shared) over
 * {@link Buffers}, the records and scratch of the most tokens and rows seen, which a later
 * evaluator of the network may take over. Not thread-safe: one per evaluator.
 */
final class ClassifierPasses {

    private final BertClassifierNetwork net;
    private final int width;
    private final ClassifierHead head;
    /** The embeddings when they train, else null. */
    private final BertEmbeddings embeddings;
    private final BertLayer[] layers;
    /**
     * The prepared weights the fields above come from, held so that the network's weak reference
     * to them ({@link BertClassifierNetwork#prepared}) stays set while these passes run: a
     * collection between two tasks of a step then cannot clear it and leave the next evaluator to
     * prepare a second copy (175 MB for a fine-tuned MiniLM, seen in a 2 GiB heap's dumps).
     */
    private final ClassifierWeights weights;
    private final Buffers b;

    /** The passes at {@code theta}, its weights prepared for them alone, over new buffers. */
    ClassifierPasses(BertClassifierNetwork net, float[] theta) {
        this(net, new ClassifierWeights(net, theta), null);
    }

    /**
     * The passes at {@code weights} (prepared for this network) over {@code buffers} (their
     * {@link Buffers#Buffers made for} this network), or over new buffers when null.
     */
    ClassifierPasses(BertClassifierNetwork net, ClassifierWeights weights, Buffers buffers) {
        this.net = net;
        this.width = net.config().hidden();
        this.head = weights.head;
        this.embeddings = weights.embeddings;
        this.layers = weights.layers;
        this.weights = weights;
        this.b = buffers != null ? buffers : new Buffers(net);
    }

    /** The buffers these passes run over, for the next passes of the network once these are done. */
    Buffers buffers() {
        return b;
    }

    /**
     * Whether stacking rows leaves each row's bits as they are alone: the projection kernel
     * computes rows independently ({@link io.sparkattention.kernel.LinearWeight#rowsIndependent()}),
     * or no projection trains.
     */
    boolean rowsIndependent() {
        return layers.length == 0 || layers[0].rowsIndependent();
    }

    /** The word embedding's offset in the flat vector, or −1 when the embeddings do not train. */
    int wordOffset() {
        return embeddings == null ? -1 : embeddings.wordOffset();
    }

    /** The head, to turn a row's {@link #logits} into its loss and {@link #dLogits}. */
    ClassifierHead head() {
        return head;
    }

    /** Row r's logits (K) after the last {@link #forward}. */
    float[] logits(int r) {
        return b.logits[r];
    }

    /** Row r's logits' gradient (K), written by the caller before {@link #backward}. */
    float[] dLogits(int r) {
        return b.dLogits[r];
    }

    /** The rows forward: every row's {@link #logits}, every block's record kept for {@link #backward}. */
    void forward(RowStack rows) {
        int E = width;
        ensure(rows);
        if (embeddings != null) {
            embeddings.forward(rows, b.states[0], b.embeddingsRecord);
        } else {
            frozenInput(rows, b.states[0]);
        }
        for (int t = 0; t < layers.length; t++) {
            layers[t].forward(b.states[t], rows, b.states[t + 1], b.records[t], b.scratch);
        }
        float[] top = b.states[layers.length];
        for (int r = 0; r < rows.count(); r++) {
            int L = rows.length(r);
            float[] h = top;
            if (rows.start(r) > 0) {
                System.arraycopy(top, rows.start(r) * E, b.row, 0, L * E);
                h = b.row;
            }
            float[] p = b.pooled[r];
            head.pool(h, L, p);
            DropoutMask mask = rows.mask(r, DropoutMask.POOLED);
            if (mask != null) {
                mask.apply(p, 0, E, 0);
            }
            head.logits(p, b.logits[r]);
        }
    }

    /** The frozen prefix's states of the rows into x (M×E): the cached ones, the rest computed in one stacked call. */
    private void frozenInput(RowStack rows, float[] x) {
        int E = width, missing = 0;
        for (int r = 0; r < rows.count(); r++) {
            if (rows.frozen(r) == null) {
                missing++;
            }
        }
        float[][] computed = null;
        if (missing > 0) {
            int[][] ids = new int[missing][];
            for (int r = 0, m = 0; r < rows.count(); r++) {
                if (rows.frozen(r) == null) {
                    ids[m++] = rows.ids(r);
                }
            }
            computed = net.frozenStates(ids);
        }
        for (int r = 0, m = 0; r < rows.count(); r++) {
            float[] s = rows.frozen(r) != null ? rows.frozen(r) : computed[m++];
            System.arraycopy(s, 0, x, rows.start(r) * E, rows.length(r) * E);
        }
    }

    /** The rows' gradient, from their {@link #dLogits}, added into {@code grad} (the flat vector's sums). */
    void backward(RowStack rows, float[] grad) {
        int E = width;
        boolean encoder = layers.length > 0 || embeddings != null;
        float[] dOut = b.gradA, dIn = b.gradB;
        for (int r = 0; r < rows.count(); r++) {
            head.addParameterGradient(b.dLogits[r], b.pooled[r], grad);
            if (!encoder) {
                continue;
            }
            head.pooledGradient(b.dLogits[r], b.dPooled);
            DropoutMask mask = rows.mask(r, DropoutMask.POOLED);
            if (mask != null) {
                mask.apply(b.dPooled, 0, E, 0);
            }
            int L = rows.length(r), o = rows.start(r) * E;
            if (o == 0) {
                head.unpool(b.dPooled, L, dOut);
            } else {
                head.unpool(b.dPooled, L, b.row);
                System.arraycopy(b.row, 0, dOut, o, L * E);
            }
        }
        if (!encoder) {
            return;
        }
        for (int t = layers.length - 1; t >= 0; t--) {
            boolean needInput = t > 0 || embeddings != null;
            layers[t].backward(b.states[t], rows, dOut, needInput ? dIn : null, b.records[t], b.scratch, grad);
            float[] swap = dOut;
            dOut = dIn;
            dIn = swap;
        }
        if (embeddings != null) {
            embeddings.backward(rows, b.embeddingsRecord, dOut, grad);
        }
    }

    /** Grows the records and scratch to the rows' tokens, their longest row and their count. */
    private void ensure(RowStack rows) {
        int M = rows.tokens(), longest = 0;
        for (int r = 0; r < rows.count(); r++) {
            longest = Math.max(longest, rows.length(r));
        }
        if (b.row.length < longest * width) {
            b.row = new float[longest * width];
        }
        if (b.pooled.length < rows.count()) {
            int n = Math.max(rows.count(), 2 * b.pooled.length);
            b.pooled = new float[n][width];
            b.logits = new float[n][head.classes()];
            b.dLogits = new float[n][head.classes()];
        }
        if (M <= b.tokenCapacity) {
            return;
        }
        BertConfig c = net.config();
        for (int t = 0; t <= layers.length; t++) {
            b.states[t] = new float[M * width];
        }
        for (TrainingRecord.Layer r : b.records) {
            r.ensure(M, width, c.intermediate());
        }
        b.embeddingsRecord.ensure(M, width);
        b.scratch.ensure(M, width, c.intermediate());
        b.gradA = new float[M * width];
        b.gradB = new float[M * width];
        b.tokenCapacity = M;
    }

    /**
     * The passes' records and scratch: grown to the most tokens and rows a pass has held, every
     * array overwritten before a pass reads it, so they carry nothing from one pass (or one
     * evaluator) to the next. Not thread-safe: one holder at a time.
     */
    static final class Buffers {
        final TrainingRecord.Layer[] records;
        final LayerNormRecord embeddingsRecord = new LayerNormRecord();
        final TrainingRecord.Scratch scratch = new TrainingRecord.Scratch();
        /** states[t]: the input of trainable layer t (M×E), states[T] the top. */
        final float[][] states;
        final float[] dPooled;
        /** M×E: the gradients flowing down the layers, swapped layer by layer. */
        float[] gradA = new float[0];
        float[] gradB = new float[0];
        /** L×E: one row's states or gradient moved to offset 0 for the head's pooling. */
        float[] row = new float[0];
        /** Per row: the pooled vector after dropout (E), logits and their gradient (K). */
        float[][] pooled = new float[0][];
        float[][] logits = new float[0][];
        float[][] dLogits = new float[0][];
        int tokenCapacity;

        /** Empty buffers for the trainable part of {@code net}. */
        Buffers(BertClassifierNetwork net) {
            int trainable = net.config().layers() - net.firstTrainableLayer();
            this.records = new TrainingRecord.Layer[trainable];
            for (int t = 0; t < trainable; t++) {
                records[t] = new TrainingRecord.Layer();
            }
            this.states = new float[trainable + 1][0];
            this.dPooled = new float[net.config().hidden()];
        }
    }
}

package io.sparkattention.bert;

import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.nn.ClassifierHead;

import java.util.Arrays;

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
 * gradients are sums over the stacked rows. Holds the blocks' prepared weights and the records
 * and scratch of the most tokens and rows seen. Not thread-safe: one per evaluator.
 */
final class ClassifierPasses {

    private final BertClassifierNetwork net;
    private final int width;
    private final ClassifierHead head;
    /** The embeddings when they train, else null. */
    private final BertEmbeddings embeddings;
    private final BertLayer[] layers;
    private final TrainingRecord.Layer[] records;
    private final LayerNormRecord embeddingsRecord = new LayerNormRecord();
    private final TrainingRecord.Scratch scratch = new TrainingRecord.Scratch();
    /** states[t]: the input of trainable layer t (M×E), states[T] the top. */
    private final float[][] states;
    private final float[] dPooled;
    /** M×E: the gradients flowing down the layers, swapped layer by layer. */
    private float[] gradA = new float[0];
    private float[] gradB = new float[0];
    /** L×E: one row's states or gradient moved to offset 0 for the head's pooling. */
    private float[] row = new float[0];
    /** Per row: the pooled vector after dropout (E), logits and their gradient (K). */
    private float[][] pooled = new float[0][];
    private float[][] logits = new float[0][];
    private float[][] dLogits = new float[0][];
    private int tokenCapacity;

    ClassifierPasses(BertClassifierNetwork net, float[] theta) {
        this.net = net;
        BertConfig c = net.config();
        this.width = c.hidden();
        this.head = new ClassifierHead(net.settings().pooling(), theta, net.parameter(BertClassifierNetwork.CLASSIFIER_WEIGHT),
            net.parameter(BertClassifierNetwork.CLASSIFIER_BIAS));
        BertWeights w = net.encoderWeights(theta);
        FlashAttention kernel = new FlashAttention(AttentionSpec.defaults());
        this.embeddings = net.embeddingsTrainable() ? new BertEmbeddings(w, offsets(net, BertWeights.WORD_EMBEDDINGS,
            BertWeights.POSITION_EMBEDDINGS, BertWeights.TOKEN_TYPE_EMBEDDINGS, BertWeights.EMBEDDINGS_NORM_WEIGHT,
            BertWeights.EMBEDDINGS_NORM_BIAS)) : null;
        int first = net.firstTrainableLayer();
        this.layers = new BertLayer[c.layers() - first];
        this.records = new TrainingRecord.Layer[layers.length];
        String[] names = BertWeights.shapes(c).keySet().toArray(new String[0]);
        for (int t = 0; t < layers.length; t++) {
            int n = first + t;
            String prefix = BertWeights.layerPrefix(n);
            String[] layerNames = Arrays.stream(names).filter(s -> s.startsWith(prefix)).toArray(String[]::new);
            layers[t] = new BertLayer(c, w.layer(n), kernel, n, offsets(net, layerNames));
            records[t] = new TrainingRecord.Layer();
        }
        this.states = new float[layers.length + 1][0];
        this.dPooled = new float[width];
    }

    private static int[] offsets(BertClassifierNetwork net, String... names) {
        int[] o = new int[names.length];
        for (int i = 0; i < names.length; i++) {
            o[i] = net.parameter(names[i]).offset();
        }
        return o;
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
        return logits[r];
    }

    /** Row r's logits' gradient (K), written by the caller before {@link #backward}. */
    float[] dLogits(int r) {
        return dLogits[r];
    }

    /** The rows forward: every row's {@link #logits}, every block's record kept for {@link #backward}. */
    void forward(RowStack rows) {
        int E = width;
        ensure(rows);
        if (embeddings != null) {
            embeddings.forward(rows, states[0], embeddingsRecord);
        } else {
            frozenInput(rows, states[0]);
        }
        for (int t = 0; t < layers.length; t++) {
            layers[t].forward(states[t], rows, states[t + 1], records[t], scratch);
        }
        float[] top = states[layers.length];
        for (int r = 0; r < rows.count(); r++) {
            int L = rows.length(r);
            float[] h = top;
            if (rows.start(r) > 0) {
                System.arraycopy(top, rows.start(r) * E, row, 0, L * E);
                h = row;
            }
            float[] p = pooled[r];
            head.pool(h, L, p);
            DropoutMask mask = rows.mask(r, DropoutMask.POOLED);
            if (mask != null) {
                mask.apply(p, 0, E, 0);
            }
            head.logits(p, logits[r]);
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
        float[] dOut = gradA, dIn = gradB;
        for (int r = 0; r < rows.count(); r++) {
            head.addParameterGradient(dLogits[r], pooled[r], grad);
            if (!encoder) {
                continue;
            }
            head.pooledGradient(dLogits[r], dPooled);
            DropoutMask mask = rows.mask(r, DropoutMask.POOLED);
            if (mask != null) {
                mask.apply(dPooled, 0, E, 0);
            }
            int L = rows.length(r), o = rows.start(r) * E;
            if (o == 0) {
                head.unpool(dPooled, L, dOut);
            } else {
                head.unpool(dPooled, L, row);
                System.arraycopy(row, 0, dOut, o, L * E);
            }
        }
        if (!encoder) {
            return;
        }
        for (int t = layers.length - 1; t >= 0; t--) {
            boolean needInput = t > 0 || embeddings != null;
            layers[t].backward(states[t], rows, dOut, needInput ? dIn : null, records[t], scratch, grad);
            float[] swap = dOut;
            dOut = dIn;
            dIn = swap;
        }
        if (embeddings != null) {
            embeddings.backward(rows, embeddingsRecord, dOut, grad);
        }
    }

    /** Grows the records and scratch to the rows' tokens, their longest row and their count. */
    private void ensure(RowStack rows) {
        int M = rows.tokens(), longest = 0;
        for (int r = 0; r < rows.count(); r++) {
            longest = Math.max(longest, rows.length(r));
        }
        if (row.length < longest * width) {
            row = new float[longest * width];
        }
        if (pooled.length < rows.count()) {
            int n = Math.max(rows.count(), 2 * pooled.length);
            pooled = new float[n][width];
            logits = new float[n][head.classes()];
            dLogits = new float[n][head.classes()];
        }
        if (M <= tokenCapacity) {
            return;
        }
        BertConfig c = net.config();
        for (int t = 0; t <= layers.length; t++) {
            states[t] = new float[M * width];
        }
        for (TrainingRecord.Layer r : records) {
            r.ensure(M, width, c.intermediate());
        }
        embeddingsRecord.ensure(M, width);
        scratch.ensure(M, width, c.intermediate());
        gradA = new float[M * width];
        gradB = new float[M * width];
        tokenCapacity = M;
    }
}

package io.sparkattention.bert;

import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.nn.ParameterTensor;
import io.sparkattention.nn.Softmax;

import java.util.Arrays;
import java.util.Objects;

/**
 * One {@link BertClassifierNetwork} evaluated at one trainable parameter vector: per-row losses
 * with their gradients, and logits. Made by {@link BertClassifierNetwork#bind}. It holds the
 * trainable blocks' prepared weights and its own scratch (activation records grown to the longest
 * row seen, at most the encoder's maxPositions), so rows make little garbage. Not thread-safe: one
 * per thread.
 *
 * <p>Per row (x₀ the frozen prefix's states, or the embeddings' output when they train):
 * <pre>
 *   forward:   x = layer_n(x) for each trainable layer, each keeping its activation record
 *              pooled = dropout(pool(x));  z = pooled·Wᵀ + b;  CE = logsumexp(z) − z_y
 *   backward:  dz = w·(softmax(z) − onehot(y));  dW += dz·pooledᵀ,  db += dz,  dpooled = Wᵀ·dz
 *              dx = pool'ᵀ·(dpooled∘M);  dx = layer_n.backward(dx) top to bottom;  embeddings' backward
 * </pre>
 * Gradients are summed in float32 in one pending vector: {@link #accumulate} adds one row's and
 * flushes it into the caller's float64 sums at once; {@link #add} leaves it pending until
 * {@link #flushInto}, so that a trainer adding many rows pays the flush (a read and write of every
 * trainable parameter) once per run of rows rather than once per row. Of the word embedding only
 * the rows of the pending rows' ids are flushed.
 */
public final class BertClassifierEvaluator {

    private final BertClassifierNetwork net;
    private final boolean training;
    private final long seed;
    private final long step;
    private final double p;
    private final int width;
    private final BertEmbeddings embeddings;
    private final BertLayer[] layers;
    private final float[] headWeight;
    private final float[] headBias;
    private final int headWeightOffset;
    private final int headBiasOffset;
    private final float[] rowGrad;
    /** The word embedding's range in the flat vector, [wordFrom, wordTo); empty when it does not train. */
    private final int wordFrom;
    private final int wordTo;
    private final boolean[] flushed;
    /** The ids of the rows added since the last flush (word-embedding rows to flush), when the embeddings train. */
    private int[] pendingIds = new int[0];
    private int pendingIdCount;
    /** Rows added since the last flush. */
    private int pendingRows;
    private final TrainingRecord.Norm embeddingsRecord = new TrainingRecord.Norm();
    private final TrainingRecord.Layer[] records;
    private final TrainingRecord.Scratch scratch = new TrainingRecord.Scratch();
    private final float[] pooled;
    private final float[] logits;
    private final float[] dLogits;
    private final float[] dPooled;
    /** states[t]: the input of trainable layer t (states[0] may be the caller's array), states[T] the top. */
    private final float[][] states;
    /** The current row's input to the lowest trainable layer: states[0], or the caller's frozen states. */
    private float[] input;
    private float[] gradA = new float[0];
    private float[] gradB = new float[0];
    private int capacity;

    BertClassifierEvaluator(BertClassifierNetwork net, float[] theta, boolean training, long seed, long step) {
        this.net = net;
        this.training = training;
        this.seed = seed;
        this.step = step;
        this.p = net.settings().dropout();
        BertConfig c = net.config();
        this.width = c.hidden();
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
        ParameterTensor hw = net.parameter(BertClassifierNetwork.CLASSIFIER_WEIGHT);
        ParameterTensor hb = net.parameter(BertClassifierNetwork.CLASSIFIER_BIAS);
        this.headWeight = hw.slice(theta);
        this.headBias = hb.slice(theta);
        this.headWeightOffset = hw.offset();
        this.headBiasOffset = hb.offset();
        this.rowGrad = new float[net.parameterCount()];
        if (embeddings != null) {
            wordFrom = embeddings.wordOffset();
            wordTo = wordFrom + c.vocabSize() * width;
            flushed = new boolean[c.vocabSize()];
        } else {
            wordFrom = 0;
            wordTo = 0;
            flushed = null;
        }
        int K = net.numClasses();
        this.pooled = new float[width];
        this.dPooled = new float[width];
        this.logits = new float[K];
        this.dLogits = new float[K];
        this.states = new float[layers.length + 1][];
    }

    private static int[] offsets(BertClassifierNetwork net, String... names) {
        int[] o = new int[names.length];
        for (int i = 0; i < names.length; i++) {
            o[i] = net.parameter(names[i]).offset();
        }
        return o;
    }

    /** The network this evaluates. */
    public BertClassifierNetwork network() {
        return net;
    }

    /**
     * One row's contribution to a step: adds {@code weight·∂CE(logits, label)/∂θ} into {@code grad}
     * and returns {@code weight·CE}. The caller sums rows in a fixed order and divides both by
     * Σ weight (the fixtures' loss, {@code Σ wᵢ·CEᵢ / Σ wᵢ}). A training binding applies dropout with
     * masks keyed by (seed, step, {@code rowKey}, site, element).
     *
     * @param ids          the row's token ids ([CLS] … [SEP] in place), 1 ≤ L ≤ maxPositions
     * @param frozenStates the row's {@link BertClassifierNetwork#frozenStates} (L×E), or null to
     *                     compute them here; must be null when the embeddings train
     * @param rowKey       the row's deterministic key (the same for the row on every step and retry)
     * @param label        the class, in [0, K)
     * @param weight       the row's weight, finite and ≥ 0 (1 without weights); 0 adds nothing
     * @param grad         {@link BertClassifierNetwork#parameterCount()} sums, added to
     * @return weight·CE of the row
     * @throws IllegalArgumentException naming the argument that does not fit (an id with its
     *                                  position, the label, the weight, the states' or gradient's length)
     */
    public double accumulate(int[] ids, float[] frozenStates, long rowKey, int label, double weight, double[] grad) {
        checkGradient(grad);
        double loss = add(ids, frozenStates, rowKey, label, weight);
        flushInto(grad);
        return loss;
    }

    /**
     * {@link #accumulate} without the flush: adds the row's weighted gradient into the pending
     * float32 sums and returns weight·CE. The rows added before one {@link #flushInto} are summed
     * in float32 in the order they are added.
     *
     * @throws IllegalArgumentException as {@link #accumulate}
     */
    public double add(int[] ids, float[] frozenStates, long rowKey, int label, double weight) {
        checkRow(ids, frozenStates);
        if (label < 0 || label >= net.numClasses()) {
            throw new IllegalArgumentException("label " + label + " is not a class in [0, " + net.numClasses() + ")");
        }
        if (!(weight >= 0) || Double.isInfinite(weight)) {
            throw new IllegalArgumentException("row weight must be finite and >= 0, got " + weight);
        }
        if (weight == 0) {
            return 0;
        }
        boolean dropout = training && p > 0;
        Masks masks = dropout ? new Masks(rowKey) : null;
        int L = ids.length;
        forward(ids, frozenStates, masks);
        double loss = Softmax.lossAndGradient(logits, logits.length, label, weight, dLogits);
        // Counted before the backward writes into the pending sums, so that discardPending clears a
        // row that failed part-way.
        pendingRows++;
        if (flushed != null) {
            if (pendingIdCount + L > pendingIds.length) {
                pendingIds = Arrays.copyOf(pendingIds, Math.max(2 * pendingIds.length, pendingIdCount + L));
            }
            System.arraycopy(ids, 0, pendingIds, pendingIdCount, L);
            pendingIdCount += L;
        }
        backward(ids, L, masks);
        return weight * loss;
    }

    /**
     * Adds the pending sums (the rows {@link #add}ed since the last flush) into {@code grad} and
     * clears them; nothing when no row is pending.
     *
     * @param grad {@link BertClassifierNetwork#parameterCount()} sums, added to
     * @throws IllegalArgumentException when grad has another length
     */
    public void flushInto(double[] grad) {
        checkGradient(grad);
        if (pendingRows == 0) {
            return;
        }
        EncoderMath.INSTANCE.addAndClear(rowGrad, grad, 0, wordFrom);
        EncoderMath.INSTANCE.addAndClear(rowGrad, grad, wordTo, rowGrad.length);
        if (flushed != null) {
            for (int i = 0; i < pendingIdCount; i++) {
                int id = pendingIds[i];
                if (!flushed[id]) {
                    flushed[id] = true;
                    int o = wordFrom + id * width;
                    EncoderMath.INSTANCE.addAndClear(rowGrad, grad, o, o + width);
                }
            }
            for (int i = 0; i < pendingIdCount; i++) {
                flushed[pendingIds[i]] = false;
            }
        }
        pendingRows = 0;
        pendingIdCount = 0;
    }

    /** Drops the pending sums unflushed (a caller's run of rows that failed part-way). */
    public void discardPending() {
        if (pendingRows > 0) {
            Arrays.fill(rowGrad, 0f);
            pendingRows = 0;
            pendingIdCount = 0;
        }
    }

    private void checkGradient(double[] grad) {
        Objects.requireNonNull(grad, "gradient");
        if (grad.length != rowGrad.length) {
            throw new IllegalArgumentException("gradient has " + grad.length + " values, expected " + rowGrad.length);
        }
    }

    /**
     * The K raw logits of one row, in eval mode (no dropout, whatever the binding).
     *
     * @param ids          as {@link #accumulate}
     * @param frozenStates as {@link #accumulate}
     * @param logitsOut    K values, written
     * @throws IllegalArgumentException as {@link #accumulate}, or when logitsOut is not K long
     */
    public void logits(int[] ids, float[] frozenStates, float[] logitsOut) {
        checkRow(ids, frozenStates);
        Objects.requireNonNull(logitsOut, "logits");
        if (logitsOut.length != logits.length) {
            throw new IllegalArgumentException("logits array has " + logitsOut.length + " values, expected "
                + logits.length + " classes");
        }
        forward(ids, frozenStates, null);
        System.arraycopy(logits, 0, logitsOut, 0, logits.length);
    }

    private void checkRow(int[] ids, float[] frozenStates) {
        net.checkIds(ids);
        if (frozenStates != null) {
            if (!net.hasFrozenPrefix()) {
                throw new IllegalArgumentException("frozen states given, but the embeddings train: pass null");
            }
            if (frozenStates.length != ids.length * width) {
                throw new IllegalArgumentException("frozen states have " + frozenStates.length + " values, expected "
                    + ids.length + "×" + width + " for a row of " + ids.length + " tokens");
            }
        }
    }

    /** The row's dropout masks by site. */
    private final class Masks {
        final DropoutMask embeddings;
        final DropoutMask[][] layers;
        final DropoutMask pooled;

        Masks(long rowKey) {
            embeddings = DropoutMask.of(seed, step, rowKey, DropoutMask.EMBEDDINGS, p);
            layers = new DropoutMask[BertClassifierEvaluator.this.layers.length][3];
            for (int t = 0; t < layers.length; t++) {
                int n = BertClassifierEvaluator.this.layers[t].index();
                for (int kind = 0; kind < 3; kind++) {
                    layers[t][kind] = DropoutMask.of(seed, step, rowKey, DropoutMask.site(n, kind), p);
                }
            }
            pooled = DropoutMask.of(seed, step, rowKey, DropoutMask.POOLED, p);
        }
    }

    private void ensure(int L) {
        if (L <= capacity) {
            return;
        }
        BertConfig c = net.config();
        for (int t = 0; t <= layers.length; t++) {
            states[t] = new float[L * width];
        }
        for (TrainingRecord.Layer r : records) {
            r.ensure(L, width, c.intermediate());
        }
        embeddingsRecord.ensure(L, width);
        scratch.ensure(L, width, c.intermediate());
        gradA = new float[L * width];
        gradB = new float[L * width];
        capacity = L;
    }

    /** Fills {@link #pooled} (after dropout) and {@link #logits}; keeps every block's record. */
    private void forward(int[] ids, float[] frozenStates, Masks masks) {
        int L = ids.length, E = width;
        ensure(L);
        if (embeddings != null) {
            input = states[0];
            embeddings.forward(ids, input, embeddingsRecord, masks == null ? null : masks.embeddings);
        } else {
            input = frozenStates != null ? frozenStates : net.frozenStates(ids);
        }
        float[] x = input;
        for (int t = 0; t < layers.length; t++) {
            float[] out = states[t + 1];
            layers[t].forward(x, L, out, records[t], scratch, masks == null ? null : masks.layers[t]);
            x = out;
        }
        net.settings().pooling().pool(x, L, E, pooled);
        if (masks != null) {
            masks.pooled.apply(pooled, 0, E, 0);
        }
        for (int k = 0; k < logits.length; k++) {
            double z = headBias[k];
            for (int j = 0; j < E; j++) {
                z += (double) headWeight[k * E + j] * pooled[j];
            }
            logits[k] = (float) z;
        }
    }

    /** Adds the row's gradient into {@link #rowGrad} from {@link #dLogits}. */
    private void backward(int[] ids, int L, Masks masks) {
        int E = width, K = logits.length;
        for (int k = 0; k < K; k++) {
            float dz = dLogits[k];
            rowGrad[headBiasOffset + k] += dz;
            for (int j = 0; j < E; j++) {
                rowGrad[headWeightOffset + k * E + j] += dz * pooled[j];
            }
        }
        for (int j = 0; j < E; j++) {
            double s = 0;
            for (int k = 0; k < K; k++) {
                s += (double) headWeight[k * E + j] * dLogits[k];
            }
            dPooled[j] = (float) s;
        }
        if (masks != null) {
            masks.pooled.apply(dPooled, 0, E, 0);
        }
        if (layers.length == 0 && embeddings == null) {
            return;
        }
        float[] dOut = gradA, dIn = gradB;
        net.settings().pooling().backward(dPooled, L, E, dOut);
        for (int t = layers.length - 1; t >= 0; t--) {
            float[] x = t == 0 ? input : states[t];
            boolean needInput = t > 0 || embeddings != null;
            layers[t].backward(x, L, dOut, needInput ? dIn : null, records[t], scratch,
                masks == null ? null : masks.layers[t], rowGrad);
            float[] swap = dOut;
            dOut = dIn;
            dIn = swap;
        }
        if (embeddings != null) {
            embeddings.backward(ids, embeddingsRecord, dOut, masks == null ? null : masks.embeddings, rowGrad);
        }
    }
}

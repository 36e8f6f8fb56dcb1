package io.sparkattention.bert;

import io.sparkattention.nn.ClassifierHead;
import io.sparkattention.nn.ParameterTensor;
import io.sparkattention.nn.Pooling;
import io.sparkattention.nn.TrainableNetwork;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A BERT encoder with a linear classifier head on its pooled output, the model of the fine-tuning
 * fixtures ({@code make_finetune_fixtures.py}), for one unpadded row of L token ids:
 * <pre>
 *   x      = LN(word[ids] + position[0..L) + tokenType[0])          {@link BertEmbeddings}
 *   x      = layer_n(x) for n = 0 … layers − 1                      {@link BertLayer}
 *   pooled = mean of x's L rows | x[0]                              ({@link Pooling#MEAN}, {@link Pooling#FIRST})
 *   logits = pooled·Wᵀ + b                                          W: K×E, b: K
 *   loss   = Σᵢ wᵢ·CE(logitsᵢ, yᵢ) / Σᵢ wᵢ                          over a step's rows
 * </pre>
 *
 * <p><b>Frozen prefix and trainable top.</b> {@link BertClassifierSettings#trainableLayers()} N
 * trains the top N layers and the head (0: the head only); −1 trains everything, the embeddings
 * too. The frozen prefix (embeddings and layers {@code [0, layers − N)}) runs as in inference, so
 * a row's {@link #frozenStates} can be computed once and cached: a {@link BertClassifierRow}
 * carries them to the evaluator instead of their being recomputed every step.
 *
 * <p><b>The flat parameter vector</b> ({@link #parameters()}) holds the trainable tensors only,
 * under Hugging Face {@code BertModel} names, in this order: when the embeddings train,
 * {@code embeddings.word_embeddings.weight}, {@code embeddings.position_embeddings.weight},
 * {@code embeddings.token_type_embeddings.weight}, {@code embeddings.LayerNorm.weight},
 * {@code embeddings.LayerNorm.bias}; then for each trainable layer n, bottom to top,
 * {@code encoder.layer.n.} + {@code attention.self.query.weight}, {@code .bias}, {@code key},
 * {@code value}, {@code attention.output.dense.weight/bias},
 * {@code attention.output.LayerNorm.weight/bias}, {@code intermediate.dense.weight/bias},
 * {@code output.dense.weight/bias}, {@code output.LayerNorm.weight/bias}; last
 * {@code classifier.weight} [K, E] and {@code classifier.bias} [K] ({@link BertWeights#shapes}
 * order, PyTorch layouts). {@link ParameterTensor#decayed()} says which tensors AdamW decays
 * (not biases, not LayerNorm parameters), as {@code Optimizer.adamW} uses it.
 *
 * <p><b>Dropout</b> ({@link BertClassifierSettings#dropout()} = p &gt; 0, training binds only) at
 * Hugging Face's sites of the trainable part: the embeddings' output (when they train), each
 * trainable layer's attention probabilities, its attention output and its feed-forward output
 * (both before their residual), and the pooled vector before the head. Masks come from
 * {@link DropoutMask}, a counter-based generator keyed by (seed, step, row key, site, element),
 * so no result depends on partitioning, threads or retries. The frozen prefix has no dropout
 * (it would not be cacheable otherwise).
 *
 * <p>The training engine's {@link TrainableNetwork} of {@link BertClassifierRow}s: immutable and
 * serializable (it travels to executors with the frozen encoder it holds); {@link #bind} gives
 * the per-thread {@link BertClassifierEvaluator} that computes losses, gradients (the rows of a
 * run stacked through every projection) and logits.
 */
public final class BertClassifierNetwork implements TrainableNetwork<BertClassifierRow> {

    private static final long serialVersionUID = 1L;

    /** Name of the head's weight, K×E. */
    public static final String CLASSIFIER_WEIGHT = ClassifierHead.WEIGHT;
    /** Name of the head's bias, K. */
    public static final String CLASSIFIER_BIAS = ClassifierHead.BIAS;

    private final BertWeights encoder;
    private final float[] classifierWeight;
    private final float[] classifierBias;
    private final BertClassifierSettings settings;
    private final List<ParameterTensor> parameters;
    private final int parameterCount;
    /** The frozen prefix's encoder, made on first use. */
    private transient volatile BertEncoder prefix;
    /** The trainable part's weights last prepared ({@link #prepared}), while an evaluator holds them. */
    private transient WeakReference<ClassifierWeights> prepared;

    /**
     * @param encoder          the starting encoder (its trainable tensors are the initial values,
     *                         its frozen ones stay as they are)
     * @param classifierWeight the starting head weight, K×E row-major (PyTorch's layout)
     * @param classifierBias   the starting head bias, K ≥ 1
     * @param settings         trainable layers, pooling, dropout
     * @throws IllegalArgumentException when trainableLayers exceeds the encoder's layers, the head's
     *                                  sizes disagree with each other or with E, or the parameters
     *                                  do not fit one array
     */
    public BertClassifierNetwork(BertWeights encoder, float[] classifierWeight, float[] classifierBias,
                                 BertClassifierSettings settings) {
        this.encoder = Objects.requireNonNull(encoder, "encoder");
        this.settings = Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(classifierWeight, CLASSIFIER_WEIGHT);
        Objects.requireNonNull(classifierBias, CLASSIFIER_BIAS);
        BertConfig c = encoder.config();
        if (settings.trainableLayers() > c.layers()) {
            throw new IllegalArgumentException("trainableLayers " + settings.trainableLayers() + " exceeds the encoder's "
                + c.layers() + " layers");
        }
        int K = classifierBias.length;
        if (K < 1) {
            throw new IllegalArgumentException(CLASSIFIER_BIAS + " is empty: the head needs at least one class");
        }
        if ((long) K * c.hidden() != classifierWeight.length) {
            throw new IllegalArgumentException(CLASSIFIER_WEIGHT + " has " + classifierWeight.length
                + " values, expected " + K + "×" + c.hidden() + " (classes × hidden)");
        }
        this.classifierWeight = classifierWeight.clone();
        this.classifierBias = classifierBias.clone();
        List<ParameterTensor> list = new ArrayList<>();
        long offset = 0;
        for (Map.Entry<String, long[]> e : BertWeights.shapes(c).entrySet()) {
            if (trains(e.getKey())) {
                offset = add(list, e.getKey(), offset, e.getValue());
            }
        }
        offset = add(list, CLASSIFIER_WEIGHT, offset, new long[] {K, c.hidden()});
        offset = add(list, CLASSIFIER_BIAS, offset, new long[] {K});
        this.parameters = Collections.unmodifiableList(list);
        this.parameterCount = (int) offset;
    }

    private static long add(List<ParameterTensor> list, String name, long offset, long[] shape) {
        long size = 1;
        int[] s = new int[shape.length];
        for (int i = 0; i < shape.length; i++) {
            size *= shape[i];
            s[i] = (int) shape[i];
        }
        if (offset + size > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("the trainable parameters reach " + name + " beyond "
                + (Integer.MAX_VALUE - 8) + " values: too many for one array");
        }
        list.add(ParameterTensor.of(name, (int) offset, s));
        return offset + size;
    }

    /** Whether the encoder tensor {@code name} is trainable under the settings. */
    private boolean trains(String name) {
        if (settings.trainableLayers() < 0) {
            return true;
        }
        if (!name.startsWith("encoder.layer.")) {
            return false;
        }
        int layer = Integer.parseInt(name.substring("encoder.layer.".length(), name.indexOf('.', 14)));
        return layer >= firstTrainableLayer();
    }

    public BertConfig config() {
        return encoder.config();
    }

    public BertClassifierSettings settings() {
        return settings;
    }

    /** K, the head's classes. */
    public int numClasses() {
        return classifierBias.length;
    }

    /** The starting encoder (the frozen tensors' values). */
    public BertWeights initialEncoder() {
        return encoder;
    }

    /** The lowest trainable layer: {@code layers − trainableLayers}, or 0 when everything trains. */
    public int firstTrainableLayer() {
        int n = settings.trainableLayers();
        return n < 0 ? 0 : config().layers() - n;
    }

    /** Whether the embeddings train ({@code trainableLayers = −1}). */
    public boolean embeddingsTrainable() {
        return settings.trainableLayers() < 0;
    }

    /** Whether a row has a frozen prefix whose output {@link #frozenStates} gives (everything but −1). */
    public boolean hasFrozenPrefix() {
        return !embeddingsTrainable();
    }

    /** Length of the flat trainable parameter vector. */
    @Override
    public int parameterCount() {
        return parameterCount;
    }

    /** The trainable tensors of the flat vector, in the order of the class comment. */
    @Override
    public List<ParameterTensor> parameters() {
        return parameters;
    }

    /** The word embedding (tensor 0) when the embeddings train: a step touches the rows of its rows' ids. */
    @Override
    public int[] rowSparseTensors() {
        return embeddingsTrainable() ? new int[] {0} : new int[0];
    }

    /**
     * The trainable tensor named {@code name}.
     *
     * @throws IllegalArgumentException when no trainable tensor has that name
     */
    public ParameterTensor parameter(String name) {
        for (ParameterTensor t : parameters) {
            if (t.name().equals(name)) {
                return t;
            }
        }
        throw new IllegalArgumentException("no trainable tensor " + name + " (trainableLayers "
            + settings.trainableLayers() + ")");
    }

    /** The starting values of the trainable tensors (the encoder's and the head's), as a new flat vector. */
    public float[] initialParameters() {
        float[] theta = new float[parameterCount];
        for (ParameterTensor t : parameters) {
            float[] src = initialTensor(t.name());
            System.arraycopy(src, 0, theta, t.offset(), t.size());
        }
        return theta;
    }

    private float[] initialTensor(String name) {
        if (name.equals(CLASSIFIER_WEIGHT)) {
            return classifierWeight;
        }
        if (name.equals(CLASSIFIER_BIAS)) {
            return classifierBias;
        }
        return encoder.tensor(name);
    }

    /**
     * Checks a row's token ids: 1 ≤ L ≤ maxPositions, every id in [0, vocabSize).
     *
     * @throws IllegalArgumentException naming the position and id, or the length, that does not fit
     */
    public void checkIds(int[] ids) {
        Objects.requireNonNull(ids, "input ids");
        BertConfig c = config();
        if (ids.length < 1) {
            throw new IllegalArgumentException("a row needs at least one token, got none");
        }
        if (ids.length > c.maxPositions()) {
            throw new IllegalArgumentException("row of " + ids.length + " tokens exceeds the encoder's "
                + c.maxPositions() + " positions");
        }
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] < 0 || ids[i] >= c.vocabSize()) {
                throw new IllegalArgumentException("token id " + ids[i] + " at position " + i + " is outside [0, "
                    + c.vocabSize() + ")");
            }
        }
    }

    /**
     * The hidden states the frozen prefix gives a row (embeddings, then layers
     * {@code [0, firstTrainableLayer())}, as in inference, no dropout): L×E row-major, to be cached
     * in the row's {@link BertClassifierRow#frozenStates()} (or passed to
     * {@link BertClassifierEvaluator#logits}). Thread-safe.
     *
     * @throws IllegalStateException    when everything trains ({@link #hasFrozenPrefix()} is false)
     * @throws IllegalArgumentException as {@link #checkIds}
     */
    public float[] frozenStates(int[] ids) {
        if (!hasFrozenPrefix()) {
            throw new IllegalStateException("every layer and the embeddings train: there is no frozen prefix to cache");
        }
        checkIds(ids);
        return prefixEncoder().prefix(ids, firstTrainableLayer());
    }

    /**
     * {@link #frozenStates(int[])} of several rows, each bit for bit what the single-row call
     * gives it: the rows go through one stacked forward (each projection's weights read once for
     * all of them; see {@link BertEncoder#forward(int[][])}). Thread-safe.
     *
     * @throws IllegalStateException    as {@link #frozenStates(int[])}
     * @throws IllegalArgumentException as {@link #checkIds}, naming the row (0-based)
     */
    public float[][] frozenStates(int[][] rows) {
        if (!hasFrozenPrefix()) {
            throw new IllegalStateException("every layer and the embeddings train: there is no frozen prefix to cache");
        }
        Objects.requireNonNull(rows, "rows");
        for (int r = 0; r < rows.length; r++) {
            try {
                checkIds(rows[r]);
            } catch (IllegalArgumentException | NullPointerException e) {
                throw new IllegalArgumentException("row " + r + " of the batch: " + e.getMessage(), e);
            }
        }
        return prefixEncoder().prefix(rows, firstTrainableLayer());
    }

    private BertEncoder prefixEncoder() {
        BertEncoder e = prefix;
        if (e == null) {
            e = new BertEncoder(encoder);
            prefix = e;
        }
        return e;
    }

    /** {@link #bind(float[], boolean, long, long)} in eval mode (no dropout): one per thread and vector, for many rows. */
    public BertClassifierEvaluator bind(float[] theta) {
        return bind(theta, false, 0L, 0L);
    }

    /** {@link #bind(float[], boolean, long, long)} for training step {@code step} of a run seeded {@code seed}. */
    public BertClassifierEvaluator bind(float[] theta, long seed, long step) {
        return bind(theta, true, seed, step);
    }

    /**
     * The evaluator of this network at {@code theta}: in training its {@code add}s apply dropout
     * (p = {@link BertClassifierSettings#dropout()}) with masks keyed by (seed, step, row key, site,
     * element); in evaluation (training false) nothing drops and seed and step are ignored. Its
     * {@code loss} and {@code logits} never drop.
     *
     * @throws IllegalArgumentException when theta is not {@link #parameterCount()} long
     */
    @Override
    public BertClassifierEvaluator bind(float[] theta, boolean training, long seed, long step) {
        checkParameters(theta);
        return new BertClassifierEvaluator(this, theta, training, training ? seed : 0L, training ? step : 0L);
    }

    /**
     * The trainable part at {@code theta} prepared for this JVM's kernels: the last ones prepared
     * while still held, when they hold the same values (bit for bit), else new ones.
     */
    synchronized ClassifierWeights prepared(float[] theta) {
        ClassifierWeights w = prepared == null ? null : prepared.get();
        if (w == null || !w.holds(this, theta)) {
            w = new ClassifierWeights(this, theta);
            prepared = new WeakReference<>(w);
        }
        return w;
    }

    private void checkParameters(float[] theta) {
        Objects.requireNonNull(theta, "parameters");
        if (theta.length != parameterCount) {
            throw new IllegalArgumentException("parameter vector has " + theta.length + " values, expected "
                + parameterCount + " (trainableLayers " + settings.trainableLayers() + ")");
        }
    }

    /**
     * The encoder at {@code theta}: the trainable tensors copied out of it, the frozen ones the
     * starting encoder's (shared arrays, never modified).
     *
     * @throws IllegalArgumentException when theta is not {@link #parameterCount()} long
     */
    public BertWeights encoderWeights(float[] theta) {
        checkParameters(theta);
        Map<String, float[]> tensors = new LinkedHashMap<>(encoder.tensors());
        for (ParameterTensor t : parameters) {
            if (tensors.containsKey(t.name())) {
                tensors.put(t.name(), t.slice(theta));
            }
        }
        return new BertWeights(config(), tensors);
    }

    /** The head's weight at {@code theta}, K×E row-major (a copy). */
    public float[] classifierWeight(float[] theta) {
        checkParameters(theta);
        return parameter(CLASSIFIER_WEIGHT).slice(theta);
    }

    /** The head's bias at {@code theta}, K values (a copy). */
    public float[] classifierBias(float[] theta) {
        checkParameters(theta);
        return parameter(CLASSIFIER_BIAS).slice(theta);
    }

    /**
     * Every tensor of the model at {@code theta} under Hugging Face names: the encoder's in
     * {@link BertWeights#shapes} order (no prefix), then {@code classifier.weight} and
     * {@code classifier.bias}; what a PyTorch {@code BertModel} plus {@code nn.Linear} head loads.
     */
    public Map<String, float[]> stateDict(float[] theta) {
        Map<String, float[]> out = new LinkedHashMap<>(encoderWeights(theta).tensors());
        out.put(CLASSIFIER_WEIGHT, classifierWeight(theta));
        out.put(CLASSIFIER_BIAS, classifierBias(theta));
        return out;
    }

    @Override
    public String toString() {
        return "BertClassifierNetwork{" + config() + ", K=" + numClasses() + ", " + settings + "}";
    }
}

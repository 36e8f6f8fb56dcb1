package io.sparkattention.nn;

import io.sparkattention.kernel.Heads;
import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.LinearKernel;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * The attention classifier of the training fixtures ({@code AttentionClassifier} in
 * {@code make_training_fixtures.py}), for one sequence of L valid tokens x (L×E):
 * <pre>
 *   a      = MultiheadAttention(E, H)(x, x, x)      self-attention, causal optional
 *   h      = x + a   (residual)   or   a
 *   pooled = mean of h's rows | h[0] | h[L − 1]      ({@link Pooling})
 *   logits = pooled·Wcᵀ + bc                          (K classes)
 * </pre>
 * Its parameters live in one flat float vector, in state_dict order ({@link #parameters()}):
 * {@code attention.in_proj_weight} [3E, E], {@code attention.in_proj_bias} [3E],
 * {@code attention.out_proj.weight} [E, E], {@code attention.out_proj.bias} [E],
 * {@code classifier.weight} [K, E], {@code classifier.bias} [K].
 *
 * <p>Immutable and serializable (it travels to executors); {@link #bind} gives the per-thread
 * object that computes losses, gradients and logits. As a {@link TrainableNetwork} its rows are
 * {@link LabelledSequence}s, flushed one at a time ({@link #rowsPerRun()}) and never dropped out.
 */
public final class AttentionClassifierNetwork implements TrainableNetwork<LabelledSequence> {

    private static final long serialVersionUID = 1L;

    public static final String IN_PROJ_WEIGHT = "attention.in_proj_weight";
    public static final String IN_PROJ_BIAS = "attention.in_proj_bias";
    public static final String OUT_PROJ_WEIGHT = "attention.out_proj.weight";
    public static final String OUT_PROJ_BIAS = "attention.out_proj.bias";
    public static final String CLASSIFIER_WEIGHT = ClassifierHead.WEIGHT;
    public static final String CLASSIFIER_BIAS = ClassifierHead.BIAS;

    private final int embedDim;
    private final int numHeads;
    private final int numClasses;
    private final boolean causal;
    private final boolean residual;
    private final Pooling pooling;
    private final FlashAttention kernel;
    private final List<ParameterTensor> parameters;
    private final int parameterCount;

    /**
     * @param embedDim   E ≥ 1, the width of a token
     * @param numHeads   H ≥ 1, dividing E
     * @param numClasses K ≥ 1
     * @param causal     whether token i attends only to tokens j ≤ i
     * @param residual   {@code h = x + a} when true, {@code h = a} when false
     * @param pooling    how h's rows become one vector: mean, first or last
     * @throws IllegalArgumentException naming the parameter that is out of range
     */
    public AttentionClassifierNetwork(int embedDim, int numHeads, int numClasses, boolean causal, boolean residual,
                                      Pooling pooling) {
        if (embedDim < 1) {
            throw new IllegalArgumentException("embedDim must be >= 1, got " + embedDim);
        }
        Heads.headDim(embedDim, numHeads, "numHeads", "embedDim");
        if (numClasses < 1) {
            throw new IllegalArgumentException("numClasses must be >= 1, got " + numClasses);
        }
        long count = 4L * embedDim * embedDim + 4L * embedDim + (long) numClasses * embedDim + numClasses;
        if (count > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("embedDim " + embedDim + " and numClasses " + numClasses + " give "
                + count + " parameters, more than one array holds");
        }
        this.embedDim = embedDim;
        this.numHeads = numHeads;
        this.numClasses = numClasses;
        this.causal = causal;
        this.residual = residual;
        this.pooling = Objects.requireNonNull(pooling, "pooling");
        if (pooling == Pooling.MAX) {
            throw new IllegalArgumentException("pooling must be mean, first or last for the classifier, got max");
        }
        this.kernel = new FlashAttention(AttentionSpec.defaults().withCausal(causal));
        int e = embedDim, k = numClasses;
        ParameterTensor inW = new ParameterTensor(IN_PROJ_WEIGHT, 0, 3 * e, e);
        ParameterTensor inB = new ParameterTensor(IN_PROJ_BIAS, end(inW), 3 * e);
        ParameterTensor outW = new ParameterTensor(OUT_PROJ_WEIGHT, end(inB), e, e);
        ParameterTensor outB = new ParameterTensor(OUT_PROJ_BIAS, end(outW), e);
        ParameterTensor clsW = new ParameterTensor(CLASSIFIER_WEIGHT, end(outB), k, e);
        ParameterTensor clsB = new ParameterTensor(CLASSIFIER_BIAS, end(clsW), k);
        this.parameters = List.of(inW, inB, outW, outB, clsW, clsB);
        this.parameterCount = end(clsB);
    }

    private static int end(ParameterTensor t) {
        return t.offset() + t.size();
    }

    public int embedDim() {
        return embedDim;
    }

    public int numHeads() {
        return numHeads;
    }

    public int numClasses() {
        return numClasses;
    }

    public boolean causal() {
        return causal;
    }

    public boolean residual() {
        return residual;
    }

    public Pooling pooling() {
        return pooling;
    }

    /** The attention kernel: default scale 1/√(E/H), causal as configured. */
    public FlashAttention kernel() {
        return kernel;
    }

    /** Length of the flat parameter vector: 4E² + 4E + K·E + K. */
    @Override
    public int parameterCount() {
        return parameterCount;
    }

    /** The tensors of the flat vector, in state_dict order. */
    @Override
    public List<ParameterTensor> parameters() {
        return parameters;
    }

    /**
     * The tensor named {@code name}.
     *
     * @throws IllegalArgumentException when the network has no such tensor
     */
    public ParameterTensor parameter(String name) {
        for (ParameterTensor t : parameters) {
            if (t.name().equals(name)) {
                return t;
            }
        }
        throw new IllegalArgumentException("no parameter tensor " + name + " (the network has " + parameters + ")");
    }

    /**
     * Starting parameters drawn from PyTorch's initial distributions: {@code in_proj_weight}
     * xavier-uniform over the whole 3E×E matrix (±√(6/4E)), {@code out_proj.weight} and
     * {@code classifier.weight} kaiming-uniform with a = √5 (±1/√E), {@code classifier.bias}
     * ±1/√E, the attention's biases 0. The attention part is {@link MultiHeadAttentionInit}'s
     * for the same seed. Equal seeds give equal vectors (not torch.manual_seed's numbers).
     */
    public float[] initialParameters(long seed) {
        MultiHeadAttentionWeights attention = MultiHeadAttentionInit.pytorchDefault(embedDim, numHeads, embedDim,
            embedDim, true, seed);
        float[] theta = new float[parameterCount];
        int e2 = embedDim * embedDim;
        System.arraycopy(attention.qWeight(), 0, theta, 0, e2);
        System.arraycopy(attention.kWeight(), 0, theta, e2, e2);
        System.arraycopy(attention.vWeight(), 0, theta, 2 * e2, e2);
        System.arraycopy(attention.outWeight(), 0, theta, parameter(OUT_PROJ_WEIGHT).offset(), e2);
        SplittableRandom random = new SplittableRandom(seed).split();
        double bound = 1.0 / Math.sqrt(embedDim);
        ParameterTensor clsW = parameter(CLASSIFIER_WEIGHT);
        for (int i = clsW.offset(); i < parameterCount; i++) {  // classifier.weight, then classifier.bias
            theta[i] = (float) ((2 * random.nextDouble() - 1) * bound);
        }
        return theta;
    }

    /**
     * The attention part of a parameter vector as the library's multi-head weights (copies), to
     * apply, draw or save the trained attention like any other.
     */
    public MultiHeadAttentionWeights attentionWeights(float[] theta) {
        checkParameters(theta);
        int e = embedDim, e2 = e * e;
        int inB = parameter(IN_PROJ_BIAS).offset();
        return MultiHeadAttentionWeights.of(e, numHeads, e, e,
            Arrays.copyOfRange(theta, 0, e2), Arrays.copyOfRange(theta, e2, 2 * e2),
            Arrays.copyOfRange(theta, 2 * e2, 3 * e2),
            Arrays.copyOfRange(theta, inB, inB + e), Arrays.copyOfRange(theta, inB + e, inB + 2 * e),
            Arrays.copyOfRange(theta, inB + 2 * e, inB + 3 * e),
            parameter(OUT_PROJ_WEIGHT).slice(theta), parameter(OUT_PROJ_BIAS).slice(theta));
    }

    /**
     * The object that evaluates this network at {@code theta} (copied once, its attention weights
     * prepared for the JVM's projection kernel): one per thread and per parameter vector, reused
     * over many rows.
     *
     * @throws IllegalArgumentException when {@code theta} is not {@link #parameterCount()} long
     */
    public ClassifierEvaluator bind(float[] theta) {
        return bind(theta, LinearKernel.get());
    }

    /**
     * 1: each row's float32 gradient goes into the float64 sums on its own, so that a row's
     * contribution is the same however rows are spread over partitions (see
     * {@link ClassifierEvaluator}: float32 sums over runs of rows moved trained parameters by 6e-5).
     */
    @Override
    public int rowsPerRun() {
        return 1;
    }

    /**
     * {@link #bind(float[])}: the network has no dropout, so the training and the evaluation
     * bindings are the same and ignore seed and step.
     */
    @Override
    public ClassifierEvaluator bind(float[] theta, boolean training, long seed, long step) {
        return bind(theta);
    }

    /** {@link #bind(float[])} on a given projection kernel (side-by-side tests and benchmarks). */
    public ClassifierEvaluator bind(float[] theta, LinearKernel linearKernel) {
        checkParameters(theta);
        Objects.requireNonNull(linearKernel, "linearKernel");
        return new ClassifierEvaluator(this, theta.clone(), linearKernel);
    }

    private void checkParameters(float[] theta) {
        Objects.requireNonNull(theta, "parameters");
        if (theta.length != parameterCount) {
            throw new IllegalArgumentException("parameter vector has " + theta.length + " values, expected "
                + parameterCount + " for embedDim " + embedDim + " and numClasses " + numClasses);
        }
    }

    @Override
    public String toString() {
        return "AttentionClassifierNetwork{E=" + embedDim + ", H=" + numHeads + ", K=" + numClasses + ", causal="
            + causal + ", residual=" + residual + ", pooling=" + pooling.paramValue() + "}";
    }
}

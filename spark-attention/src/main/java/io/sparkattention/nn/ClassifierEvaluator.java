package io.sparkattention.nn;

import io.sparkattention.kernel.LinearKernel;

import java.util.Arrays;
import java.util.Objects;

/**
 * One {@link AttentionClassifierNetwork} evaluated at one parameter vector: logits, losses and
 * gradients, row by row. Made by {@link AttentionClassifierNetwork#bind}, which prepares the
 * attention's projection weights for the JVM's projection kernel once; its buffers are reused
 * across rows (remade only when a row is longer than any before, or the kernel's length changes),
 * so a partition's rows make little garbage. Not thread-safe: one per thread.
 *
 * <p>Gradients: {@link #accumulate} sums the rows' gradients in float32, in groups of at most
 * {@link #FLOAT_ROWS} rows, and adds each group's sum into the caller's float64 sums; the caller
 * calls {@link #flush} after its last row. The float32 group sums keep the per-row cost at the
 * products (adding a whole parameter-sized vector into float64 sums per row costs as much as a
 * row's products at E = 768), and the groups bound the float32 summation to a few dozen terms.
 *
 * <p>Per row of n tokens (x: n×E):
 * <pre>
 *   forward:   a = attention(x);  h = x + a | a;  p = pool(h);  z = p·W_cᵀ + b_c
 *   loss:      CE = logsumexp(z) − z_y
 *   backward:  dz = w·(softmax(z) − onehot(y));  dW_c = dz pᵀ,  db_c = dz,  dp = W_cᵀ dz
 *              dh = pool'ᵀ dp;  da = dh (the residual path carries x, which has no parameters)
 *              attention weights' gradients from da
 * </pre>
 */
public final class ClassifierEvaluator {

    /** Rows whose gradients are summed in float32 before their sum is added into the caller's float64 sums. */
    public static final int FLOAT_ROWS = 64;

    private final AttentionClassifierNetwork net;
    private final float[] theta;
    private final TrainableSelfAttention attention;
    private final int clsWeight;
    private final int clsBias;
    private final float[] pooled;
    private final float[] logits;
    private final float[] dLogits;
    private final float[] dPooled;
    /** The float32 sum of the gradients of the rows since the last {@link #flush}. */
    private final float[] groupGrad;
    private int groupRows;
    private float[] h = new float[0];
    private float[] dh = new float[0];

    ClassifierEvaluator(AttentionClassifierNetwork net, float[] theta, LinearKernel linearKernel) {
        this.net = net;
        this.theta = theta;
        this.attention = new TrainableSelfAttention(net, theta, linearKernel);
        this.clsWeight = net.parameter(AttentionClassifierNetwork.CLASSIFIER_WEIGHT).offset();
        this.clsBias = net.parameter(AttentionClassifierNetwork.CLASSIFIER_BIAS).offset();
        this.pooled = new float[net.embedDim()];
        this.logits = new float[net.numClasses()];
        this.dLogits = new float[net.numClasses()];
        this.dPooled = new float[net.embedDim()];
        this.groupGrad = new float[net.parameterCount()];
    }

    public AttentionClassifierNetwork network() {
        return net;
    }

    /**
     * One row's contribution to a step: adds {@code weight·∂CE(logits, label)/∂θ} to the sums in
     * {@code grad} (by the next {@link #flush} of the same array at the latest) and returns
     * {@code weight·CE}. The caller sums over rows and divides both by Σ weight (the fixtures'
     * loss, {@code Σ wᵢ·CEᵢ / Σ wᵢ}).
     *
     * @param x      the row's tokens, {@code length}×E row-major (values past them are not read)
     * @param length n ≥ 1 valid tokens (the caller truncates at the row's key length)
     * @param label  the class, in [0, K)
     * @param weight the row's weight, finite and ≥ 0 (1 without weights)
     * @param grad   {@link AttentionClassifierNetwork#parameterCount()} sums, added to
     * @throws IllegalArgumentException naming the argument that does not fit
     */
    public double accumulate(float[] x, int length, int label, double weight, double[] grad) {
        checkRow(x, length);
        if (label < 0 || label >= net.numClasses()) {
            throw new IllegalArgumentException("label " + label + " is not a class in [0, " + net.numClasses() + ")");
        }
        if (!(weight >= 0) || Double.isInfinite(weight)) {
            throw new IllegalArgumentException("row weight must be finite and >= 0, got " + weight);
        }
        checkGradient(grad);
        if (weight == 0) {
            return 0;  // the row adds nothing: skip its work
        }
        forward(x, length);
        double loss = Softmax.lossAndGradient(logits, logits.length, label, weight, dLogits);
        backward(x, length);
        if (++groupRows == FLOAT_ROWS) {
            flush(grad);
        }
        return weight * loss;
    }

    /**
     * Adds the gradients of the rows {@link #accumulate}d since the last flush into {@code grad}
     * and starts a new group. Call it once after the last row.
     *
     * @param grad {@link AttentionClassifierNetwork#parameterCount()} sums, added to
     */
    public void flush(double[] grad) {
        checkGradient(grad);
        if (groupRows == 0) {
            return;
        }
        for (int i = 0; i < grad.length; i++) {
            grad[i] += groupGrad[i];
        }
        Arrays.fill(groupGrad, 0f);
        groupRows = 0;
    }

    private void checkGradient(double[] grad) {
        Objects.requireNonNull(grad, "gradient");
        if (grad.length != groupGrad.length) {
            throw new IllegalArgumentException("gradient has " + grad.length + " values, expected "
                + groupGrad.length);
        }
    }

    /**
     * The K raw logits of one row.
     *
     * @param x         {@code length}×E row-major
     * @param logitsOut K values, written
     */
    public void logits(float[] x, int length, float[] logitsOut) {
        checkRow(x, length);
        Objects.requireNonNull(logitsOut, "logits");
        if (logitsOut.length != logits.length) {
            throw new IllegalArgumentException("logits array has " + logitsOut.length + " values, expected "
                + logits.length + " classes");
        }
        forward(x, length);
        System.arraycopy(logits, 0, logitsOut, 0, logits.length);
    }

    private void checkRow(float[] x, int length) {
        Objects.requireNonNull(x, "features");
        if (length < 1) {
            throw new IllegalArgumentException("a row needs at least one token, got length " + length);
        }
        long needed = (long) length * net.embedDim();
        if (x.length < needed) {
            throw new IllegalArgumentException("features have " + x.length + " values, fewer than " + length
                + " tokens × " + net.embedDim());
        }
    }

    /** (1)–(4): attention, residual, pooling, head: fills {@link #pooled} and {@link #logits}. */
    private void forward(float[] x, int n) {
        int e = net.embedDim(), size = n * e;
        if (h.length < size) {
            h = new float[size];
            dh = new float[size];
        }
        attention.forward(x, n, h);
        if (net.residual()) {
            for (int i = 0; i < size; i++) {
                h[i] += x[i];
            }
        }
        net.pooling().pool(h, n, e, pooled);
        Linear.forward(1, e, logits.length, pooled, 0, theta, clsWeight, theta, clsBias, logits);
    }

    /** The row's gradient added into {@link #groupGrad}, from {@link #dLogits}. */
    private void backward(float[] x, int n) {
        int e = net.embedDim(), classes = logits.length;
        Linear.addWeightGradient(1, e, classes, dLogits, pooled, 0, groupGrad, clsWeight);
        for (int c = 0; c < classes; c++) {
            groupGrad[clsBias + c] += dLogits[c];
        }
        Linear.inputGradient(1, e, classes, dLogits, theta, clsWeight, dPooled);
        net.pooling().backward(dPooled, n, e, dh);
        attention.backward(x, n, dh, groupGrad);
    }
}

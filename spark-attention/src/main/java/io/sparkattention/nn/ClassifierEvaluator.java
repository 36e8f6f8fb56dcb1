package io.sparkattention.nn;

import io.sparkattention.kernel.LinearKernel;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One {@link AttentionClassifierNetwork} evaluated at one parameter vector: logits, losses and
 * gradients, row by row. Made by {@link AttentionClassifierNetwork#bind}, which prepares the
 * attention's projection weights for the JVM's projection kernel once; its buffers are reused
 * across rows (remade only when a row is longer than any before, or the kernel's length changes),
 * so a partition's rows make little garbage. Not thread-safe: one per thread.
 *
 * <p>Gradients: the products add a row's gradient into one float32 vector, which
 * {@link #accumulate} (or {@link #flushInto}, after {@link #add}; the network asks the training
 * engine for runs of one row) then adds into the caller's float64 sums and clears (about a tenth of a
 * row's time at E = 768). Each row's float32 gradient is thus the same however rows are spread
 * over partitions: summing rows in float32 before the float64 sums was measured 1.1× as fast, but
 * made the trained parameters depend on the partitioning by 6e-5 (Adam scales the rounding noise
 * of near-zero gradients, such as the key bias's, up to whole steps).
 *
 * <p>Per row of n tokens (x: n×E):
 * <pre>
 *   forward:   a = attention(x);  h = x + a | a;  z = head(h)        ({@link ClassifierHead})
 *   loss:      CE = logsumexp(z) − z_y
 *   backward:  dh = head'(dz), W_c's and b_c's gradients added by the head
 *              da = dh (the residual path carries x, which has no parameters)
 *              attention weights' gradients from da
 * </pre>
 */
public final class ClassifierEvaluator implements TrainingEvaluator<LabelledSequence> {

    private final AttentionClassifierNetwork net;
    private final TrainableSelfAttention attention;
    private final ClassifierHead head;
    private final float[] pooled;
    private final float[] logits;
    private final float[] dLogits;
    private final float[] dPooled;
    /** The pending rows' gradient, added to by the products, zero after a flush. */
    private final float[] rowGrad;
    /** Rows added since the last flush. */
    private int pendingRows;
    private float[] h = new float[0];
    private float[] dh = new float[0];

    ClassifierEvaluator(AttentionClassifierNetwork net, float[] theta, LinearKernel linearKernel) {
        this.net = net;
        this.attention = new TrainableSelfAttention(net, theta, linearKernel);
        this.head = new ClassifierHead(net.pooling(), theta, net.parameter(AttentionClassifierNetwork.CLASSIFIER_WEIGHT),
            net.parameter(AttentionClassifierNetwork.CLASSIFIER_BIAS));
        this.pooled = new float[net.embedDim()];
        this.logits = new float[net.numClasses()];
        this.dLogits = new float[net.numClasses()];
        this.dPooled = new float[net.embedDim()];
        this.rowGrad = new float[net.parameterCount()];
    }

    public AttentionClassifierNetwork network() {
        return net;
    }

    /**
     * One row's contribution to a step: adds {@code weight·∂CE(logits, label)/∂θ} into
     * {@code grad} and returns {@code weight·CE}. The caller sums over rows and divides both by Σ weight (the fixtures'
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
        checkGradient(grad);
        double loss = addRow(x, length, label, weight);
        if (pendingRows > 0) {
            for (int i = 0; i < grad.length; i++) {
                grad[i] += rowGrad[i];
                rowGrad[i] = 0f;
            }
            pendingRows = 0;
        }
        return loss;
    }

    @Override
    public double weight(LabelledSequence row) {
        return row.weight();
    }

    /**
     * Adds the rows' weighted gradients into the pending float32 sums, in order, and returns
     * Σ weight·CE (see {@link #accumulate} for one row's).
     *
     * @throws IllegalArgumentException naming the row's key and what does not fit
     */
    @Override
    public double add(List<LabelledSequence> rows) {
        double loss = 0;
        for (LabelledSequence r : rows) {
            try {
                loss += addRow(r.x(), r.length(), r.label(), r.weight());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("row " + r.key() + ": " + e.getMessage(), e);
            }
        }
        return loss;
    }

    /** Σ weight·CE of the rows from their logits alone (no backward pass). */
    @Override
    public double loss(List<LabelledSequence> rows) {
        double loss = 0;
        for (LabelledSequence r : rows) {
            logits(r.x(), r.length(), logits);
            loss += r.weight() * head.loss(logits, r.label());
        }
        return loss;
    }

    @Override
    public void flushInto(GradientSums sums) {
        if (pendingRows > 0) {
            sums.addAndClear(rowGrad, 0, rowGrad.length);
            pendingRows = 0;
        }
    }

    @Override
    public void discardPending() {
        if (pendingRows > 0) {
            Arrays.fill(rowGrad, 0f);
            pendingRows = 0;
        }
    }

    /** One row's weighted gradient added into {@link #rowGrad}; returns weight·CE. */
    private double addRow(float[] x, int length, int label, double weight) {
        checkRow(x, length);
        if (label < 0 || label >= net.numClasses()) {
            throw new IllegalArgumentException("label " + label + " is not a class in [0, " + net.numClasses() + ")");
        }
        if (!(weight >= 0) || Double.isInfinite(weight)) {
            throw new IllegalArgumentException("row weight must be finite and >= 0, got " + weight);
        }
        if (weight == 0) {
            return 0;  // the row adds nothing: skip its work
        }
        forward(x, length);
        double loss = head.lossAndGradient(logits, label, weight, dLogits);
        // Counted before the backward writes, so that discardPending clears a row that failed part-way.
        pendingRows++;
        backward(x, length);
        return weight * loss;
    }

    private void checkGradient(double[] grad) {
        Objects.requireNonNull(grad, "gradient");
        if (grad.length != rowGrad.length) {
            throw new IllegalArgumentException("gradient has " + grad.length + " values, expected "
                + rowGrad.length);
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
        head.pool(h, n, pooled);
        head.logits(pooled, logits);
    }

    /** The row's gradient added into {@link #rowGrad}, from {@link #dLogits}. */
    private void backward(float[] x, int n) {
        head.addParameterGradient(dLogits, pooled, rowGrad);
        head.pooledGradient(dLogits, dPooled);
        head.unpool(dPooled, n, dh);
        attention.backward(x, n, dh, rowGrad);
    }
}

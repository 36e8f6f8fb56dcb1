package io.sparkattention.examples.bench.torch;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.core.Linear;
import ai.djl.training.GradientCollector;
import io.sparkattention.examples.bench.TorchRuntime;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The fine-tuning benchmark's PyTorch contender: {@link DjlBert} plus a linear head, every
 * parameter trainable, one step as a Hugging Face training loop runs it: forward in training mode,
 * mean cross-entropy, backward through DJL's {@link GradientCollector} (libtorch's autograd),
 * {@code clip_grad_norm_}, then {@code torch.optim.AdamW}'s update ({@link DjlAdamW}) with Hugging
 * Face's decay groups: no weight decay for biases and LayerNorm weights.
 */
final class DjlFineTuner implements TorchRuntime.FineTuner {

    private final NDManager manager;
    private final DjlBert bert;
    private final TorchRuntime.FineTuneSpec spec;
    private final DataType dataType;
    /** Every trainable parameter (the encoder's, then the head's). */
    private final Map<String, NDArray> params = new LinkedHashMap<>();
    private final DjlAdamW optimizer;
    private final NDArray headWeight, headBias;
    private boolean gradientsExist;

    DjlFineTuner(Engine engine, TorchRuntime.BertTensors weights, TorchRuntime.FineTuneSpec spec, DataType dataType) {
        this.manager = engine.newBaseManager();
        this.spec = spec;
        this.dataType = dataType;
        this.bert = new DjlBert(weights, dataType, manager.newSubManager());
        int k = spec.numClasses(), e = bert.hidden();
        if (spec.headWeight().length != (long) k * e) {
            throw new IllegalArgumentException("classifier.weight has " + spec.headWeight().length + " values, expected "
                + k + "×" + e);
        }
        headWeight = manager.create(spec.headWeight(), new Shape(k, e)).toType(dataType, false);
        headBias = manager.create(spec.headBias(), new Shape(k)).toType(dataType, false);
        params.putAll(bert.parameters());
        params.put("classifier.weight", headWeight);
        params.put("classifier.bias", headBias);
        params.values().forEach(p -> p.setRequiresGradient(true));
        // Hugging Face's groups: no decay for biases and LayerNorm weights
        optimizer = new DjlAdamW(params, (name, p) -> !(name.endsWith(".bias") || name.contains("LayerNorm")),
            spec.weightDecay(), spec.beta1(), spec.beta2(), spec.epsilon(), manager);
    }

    @Override
    public double step(int[][] ids, int[] labels) {
        try (NDScope scope = new NDScope()) {
            scope.suppressNotUsedWarning();
            double loss = backward(ids, labels, true);
            optimizer.clip(spec.maxGradNorm());
            optimizer.step(spec.stepSize());
            return loss;
        }
    }

    @Override
    public double loss(int[][] ids, int[] labels) {
        try (NDScope scope = new NDScope()) {
            scope.suppressNotUsedWarning();
            return backward(ids, labels, false);
        }
    }

    /**
     * Sets every parameter's gradient to that of the batch's mean cross-entropy (in training mode:
     * with dropout) and returns the loss. Call inside an {@link NDScope}.
     */
    double backward(int[][] ids, int[] labels, boolean training) {
        if (ids.length == 0 || ids.length != labels.length) {
            throw new IllegalArgumentException(ids.length + " texts and " + labels.length + " labels");
        }
        long[] labelValues = new long[labels.length];
        for (int i = 0; i < labels.length; i++) {
            if (labels[i] < 0 || labels[i] >= spec.numClasses()) {
                throw new IllegalArgumentException("label " + labels[i] + " of text " + i + " is outside [0, "
                    + spec.numClasses() + ")");
            }
            labelValues[i] = labels[i];
        }
        try (NDManager batch = manager.newSubManager();
             GradientCollector collector = Engine.getInstance().newGradientCollector()) {
            if (gradientsExist) {
                optimizer.zeroGradients();
            }
            NDArray loss = loss(batch, ids, labelValues, training);
            collector.backward(loss);
            gradientsExist = true;
            return loss.toType(DataType.FLOAT64, false).getDouble();
        }
    }

    /** The batch's mean cross-entropy, a scalar with its graph. */
    private NDArray loss(NDManager batch, int[][] ids, long[] labels, boolean training) {
        NDArray[] padded = DjlBert.padded(batch, ids, dataType);
        NDArray states = bert.forward(padded[0], padded[1], spec.dropout(), training);
        NDArray pooled;
        if (spec.cls()) {
            pooled = states.get(":, 0, :");
        } else {
            // real tokens only: the mean over each text's own length
            NDArray mask = padded[1].reshape(ids.length, -1, 1).eq(0).toType(dataType, false);
            pooled = states.mul(mask).sum(new int[] {1}).div(mask.sum(new int[] {1}));
        }
        NDArray logits = Linear.linear(DjlBert.drop(pooled, spec.dropout(), training), headWeight, headBias).get(0);
        NDArray oneHot = batch.create(labels).oneHot(spec.numClasses(), dataType);
        return logits.logSoftmax(-1).mul(oneHot).sum(new int[] {1}).mean().neg();
    }

    @Override
    public float[] parameter(String name) {
        NDArray p = params.get(name);
        if (p == null) {
            throw new IllegalArgumentException("no parameter " + name);
        }
        return p.toType(DataType.FLOAT32, false).toFloatArray();
    }

    /** A parameter's current value in the parameters' own type, widened to double (for tests). */
    double[] parameter64(String name) {
        return params.get(name).toType(DataType.FLOAT64, false).toDoubleArray();
    }

    /** A parameter's gradient from the last {@link #backward}, widened to double (for tests). */
    double[] gradient64(String name) {
        try (NDScope scope = new NDScope()) {
            scope.suppressNotUsedWarning();
            return params.get(name).getGradient().toType(DataType.FLOAT64, false).toDoubleArray();
        }
    }

    /** Sets one value of a parameter (for finite differences in tests). */
    void set(String name, int index, double value) {
        NDArray p = params.get(name);
        double[] values = parameter64(name);
        values[index] = value;
        p.set(java.nio.DoubleBuffer.wrap(values));
    }

    /** The parameters' names, the encoder's then the head's. */
    Iterable<String> names() {
        return params.keySet();
    }

    @Override
    public void close() {
        manager.close();
    }
}

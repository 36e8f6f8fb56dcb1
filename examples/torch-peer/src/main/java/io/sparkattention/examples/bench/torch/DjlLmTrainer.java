package io.sparkattention.examples.bench.torch;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import io.sparkattention.examples.bench.TorchLm;
import io.sparkattention.examples.bench.TorchLmTrainer;

import java.util.Map;

/**
 * The train-lm benchmark's PyTorch contender: {@link DjlGpt} (GPT-2's pre-LN blocks, {@code gelu_new},
 * the tied head, every parameter trainable) trained as a PyTorch loop over Hugging Face's
 * {@code GPT2LMHeadModel} trains it. A step zeroes the gradients, runs the forward over the rows
 * right-padded to the longest with the causal and padding mask, the head's logits at every
 * position, log-softmax and each next id's entry (Hugging Face's shifted cross-entropy, padding
 * labels left out), the sum over every predicted token over their count; then backward through
 * libtorch's autograd, {@code clip_grad_norm_} and AdamW or Adam ({@link DjlAdamW}) at the
 * schedule's rate.
 */
final class DjlLmTrainer implements TorchLmTrainer {

    private final NDManager manager;
    private final DjlGpt gpt;
    private final Spec spec;
    private final Map<String, NDArray> params;
    private final DjlAdamW optimizer;
    private long steps;
    private boolean gradientsExist;

    DjlLmTrainer(Engine engine, TorchLm.Weights weights, Spec spec) {
        if (weights.tensors().containsKey("lm_head.weight")) {
            throw new IllegalArgumentException("the trainer ties the head to wte.weight: drop lm_head.weight");
        }
        this.manager = engine.newBaseManager();
        this.spec = spec;
        this.gpt = new DjlGpt(weights, manager.newSubManager());
        this.params = gpt.parameters();
        params.values().forEach(p -> p.setRequiresGradient(true));
        // nanoGPT's and Hugging Face's groups for GPT-2: decay on every 2-D tensor
        this.optimizer = new DjlAdamW(params, (name, p) -> p.getShape().dimension() == 2, spec.decay(),
            Spec.BETA1, Spec.BETA2, Spec.EPSILON, manager);
    }

    @Override
    public double step(int[][] rows) {
        try (NDScope scope = new NDScope()) {
            scope.suppressNotUsedWarning();
            double loss = backward(rows);
            optimizer.clip(spec.maxGradNorm());
            optimizer.step(spec.rate(steps));
            steps++;
            return loss;
        }
    }

    @Override
    public double loss(int[][] rows) {
        try (NDScope scope = new NDScope(); NDManager batch = manager.newSubManager()) {
            scope.suppressNotUsedWarning();
            return loss(batch, rows).toType(DataType.FLOAT64, false).getDouble();
        }
    }

    /** Sets every parameter's gradient to that of the rows' loss and returns the loss. Call inside a scope. */
    private double backward(int[][] rows) {
        try (NDManager batch = manager.newSubManager();
             GradientCollector collector = Engine.getInstance().newGradientCollector()) {
            if (gradientsExist) {
                optimizer.zeroGradients();
            }
            NDArray loss = loss(batch, rows);
            collector.backward(loss);
            gradientsExist = true;
            return loss.toType(DataType.FLOAT64, false).getDouble();
        }
    }

    /** The rows' loss, a scalar with its graph when gradients are collected. */
    private NDArray loss(NDManager batch, int[][] rows) {
        if (rows.length == 0) {
            throw new IllegalArgumentException("a step needs at least one row");
        }
        int longest = 0;
        long tokens = 0;
        for (int r = 0; r < rows.length; r++) {
            if (rows[r].length < 2) {
                throw new IllegalArgumentException("row " + r + " has " + rows[r].length
                    + " ids: a training row needs 2");
            }
            longest = Math.max(longest, rows[r].length);
            tokens += rows[r].length - 1;
        }
        int b = rows.length, t = longest;
        long[] ids = new long[b * t];
        // position j's label: the id at j + 1, and whether that is a real token of the row
        long[] next = new long[b * (t - 1)];
        float[] real = new float[b * (t - 1)];
        int[] lengths = new int[b];
        for (int r = 0; r < b; r++) {
            lengths[r] = rows[r].length;
            for (int j = 0; j < rows[r].length; j++) {
                ids[r * t + j] = rows[r][j];
                if (j > 0) {
                    next[r * (t - 1) + j - 1] = rows[r][j];
                    real[r * (t - 1) + j - 1] = 1;
                }
            }
        }
        NDArray input = batch.create(ids, new Shape(b, t));
        NDArray states = gpt.hidden(input, DjlGpt.causalBias(batch, lengths, 0, t), gpt.newCache());
        // [B, T, V] as GPT2LMHeadModel's head gives them, then shifted: position j predicts id j + 1
        NDArray logProbs = gpt.logits(states).get(":, :-1, :").logSoftmax(-1);
        NDArray picked = logProbs.gather(batch.create(next, new Shape(b, t - 1, 1)), 2).reshape(b, t - 1);
        return picked.mul(batch.create(real, new Shape(b, t - 1))).sum().div(-tokens);
    }

    @Override
    public float[] parameter(String name) {
        NDArray p = params.get(name);
        if (p == null) {
            throw new IllegalArgumentException("no parameter " + name);
        }
        try (NDScope scope = new NDScope()) {
            scope.suppressNotUsedWarning();
            return (DjlGpt.conv1d(name, p) ? p.transpose() : p).toFloatArray();
        }
    }

    @Override
    public void close() {
        manager.close();
    }
}

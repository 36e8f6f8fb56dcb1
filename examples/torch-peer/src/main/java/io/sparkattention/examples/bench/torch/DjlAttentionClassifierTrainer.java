package io.sparkattention.examples.bench.torch;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.training.GradientCollector;
import io.sparkattention.examples.bench.TorchClassifierTrainer;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The train benchmark's PyTorch contender: the attention classifier of the training fixtures
 * ({@code make_training_fixtures.py}'s {@code AttentionClassifier}) on libtorch, every tensor
 * trainable, as {@code nn.MultiheadAttention(E, H, batch_first=True)} computes it for x (B×L×E):
 * <pre>
 *   q, k, v = split(x·in_proj_weightᵀ + in_proj_bias)        B×L×E each, then B×H×L×D
 *   a       = softmax((q/√D)·kᵀ + mask)·v · out_projᵀ + bias    mask: −∞ on padded keys (and j > i if causal)
 *   h       = x + a (residual) or a
 *   pooled  = S·h        S (B×1×L): 1/n on a row's n valid tokens (mean), one-hot on the first or last valid token
 *   logits  = pooled·classifier.weightᵀ + classifier.bias
 *   loss    = −Σ wᵢ·log softmax(logitsᵢ)[yᵢ] / Σ wᵢ
 * </pre>
 * then backward through libtorch's autograd and Adam or AdamW ({@link DjlAdamW}, every tensor decayed
 * as {@code torch.optim.AdamW(model.parameters())} decays them).
 */
final class DjlAttentionClassifierTrainer implements TorchClassifierTrainer {

    private static final String[] NAMES = {"attention.in_proj_weight", "attention.in_proj_bias",
        "attention.out_proj.weight", "attention.out_proj.bias", "classifier.weight", "classifier.bias"};

    private final NDManager manager;
    private final Spec spec;
    private final Map<String, NDArray> params = new LinkedHashMap<>();
    private final DjlAdamW optimizer;
    private boolean gradientsExist;

    DjlAttentionClassifierTrainer(Engine engine, Map<String, float[]> initial, Spec spec) {
        TorchClassifierTrainer.checkInitial(initial, spec);
        this.manager = engine.newBaseManager();
        this.spec = spec;
        int e = spec.embedDim(), k = spec.numClasses();
        Shape[] shapes = {new Shape(3L * e, e), new Shape(3L * e), new Shape(e, e), new Shape(e), new Shape(k, e),
            new Shape(k)};
        for (int i = 0; i < NAMES.length; i++) {
            NDArray p = manager.create(initial.get(NAMES[i]), shapes[i]);
            p.setRequiresGradient(true);
            params.put(NAMES[i], p);
        }
        this.optimizer = new DjlAdamW(params, (name, p) -> true, spec.weightDecay(), Spec.BETA1, Spec.BETA2,
            Spec.EPSILON, manager);
    }

    @Override
    public double step(Batch batch) {
        try (NDScope scope = new NDScope()) {
            scope.suppressNotUsedWarning();
            double loss;
            try (NDManager local = manager.newSubManager();
                 GradientCollector collector = Engine.getInstance().newGradientCollector()) {
                if (gradientsExist) {
                    optimizer.zeroGradients();
                }
                NDArray value = loss(local, batch);
                collector.backward(value);
                gradientsExist = true;
                loss = value.toType(DataType.FLOAT64, false).getDouble();
            }
            optimizer.step(spec.stepSize());
            return loss;
        }
    }

    @Override
    public double loss(Batch batch) {
        try (NDScope scope = new NDScope(); NDManager local = manager.newSubManager()) {
            scope.suppressNotUsedWarning();
            return loss(local, batch).toType(DataType.FLOAT64, false).getDouble();
        }
    }

    /** The batch's weighted mean cross-entropy, a scalar with its graph when gradients are collected. */
    private NDArray loss(NDManager local, Batch batch) {
        int b = batch.lengths().length, l = batch.seqLen(), e = spec.embedDim(), h = spec.numHeads(), d = e / h;
        if (batch.tokens().length != (long) b * l * e) {
            throw new IllegalArgumentException("batch of " + batch.tokens().length + " token values, expected B·L·E = "
                + (long) b * l * e);
        }
        NDArray x = local.create(batch.tokens(), new Shape(b, l, e));
        NDList qkv = x.matMul(params.get(NAMES[0]).transpose()).add(params.get(NAMES[1])).split(3, 2);
        // q scaled before the product, as multi_head_attention_forward scales it (an L×D tensor, not L×L)
        NDArray q = heads(qkv.get(0).div(Math.sqrt(d)), b, l, h, d), k = heads(qkv.get(1), b, l, h, d);
        NDArray v = heads(qkv.get(2), b, l, h, d);
        NDArray mask = local.create(keyMask(batch), new Shape(b, 1, 1, l));
        if (spec.causal()) {
            mask = mask.add(local.create(causalMask(l), new Shape(1, 1, l, l)));  // B×1×L×L, a constant
        }
        NDArray scores = q.matMul(k.transpose(0, 1, 3, 2)).add(mask);
        NDArray a = scores.softmax(-1).matMul(v).transpose(0, 2, 1, 3).reshape(b, l, e)
            .matMul(params.get(NAMES[2]).transpose()).add(params.get(NAMES[3]));
        NDArray states = spec.residual() ? x.add(a) : a;
        NDArray pooled = local.create(selector(batch), new Shape(b, 1, l)).matMul(states).reshape(b, e);
        NDArray logits = pooled.matMul(params.get(NAMES[4]).transpose()).add(params.get(NAMES[5]));
        long[] labels = new long[b];
        double weightSum = 0;
        for (int r = 0; r < b; r++) {
            if (batch.labels()[r] < 0 || batch.labels()[r] >= spec.numClasses()) {
                throw new IllegalArgumentException("row " + r + " has label " + batch.labels()[r] + ", expected 0.."
                    + (spec.numClasses() - 1));
            }
            labels[r] = batch.labels()[r];
            weightSum += batch.weights()[r];
        }
        if (!(weightSum > 0)) {
            throw new IllegalArgumentException("the batch's weights sum to " + weightSum + ", expected > 0");
        }
        NDArray picked = logits.logSoftmax(1).gather(local.create(labels, new Shape(b, 1)), 1).reshape(b);
        return picked.mul(local.create(batch.weights(), new Shape(b))).sum().div(-weightSum);
    }

    /** B×L×E → B×H×L×D. */
    private static NDArray heads(NDArray t, int b, int l, int h, int d) {
        return t.reshape(b, l, h, d).transpose(0, 2, 1, 3);
    }

    /** B×L additive key padding mask (broadcast over heads and queries): −∞ on a row's padded keys. */
    private static float[] keyMask(Batch batch) {
        int b = batch.lengths().length, l = batch.seqLen();
        float[] mask = new float[b * l];
        for (int r = 0; r < b; r++) {
            java.util.Arrays.fill(mask, r * l + batch.lengths()[r], (r + 1) * l, Float.NEGATIVE_INFINITY);
        }
        return mask;
    }

    /** L×L additive causal mask (broadcast over rows and heads): −∞ where key j is after query i. */
    private static float[] causalMask(int l) {
        float[] mask = new float[l * l];
        for (int i = 0; i < l; i++) {
            java.util.Arrays.fill(mask, i * l + i + 1, (i + 1) * l, Float.NEGATIVE_INFINITY);
        }
        return mask;
    }

    /** B×L pooling weights over each row's tokens. */
    private float[] selector(Batch batch) {
        int b = batch.lengths().length, l = batch.seqLen();
        float[] s = new float[b * l];
        for (int r = 0; r < b; r++) {
            int n = batch.lengths()[r];
            switch (spec.pooling()) {
                case "mean" -> java.util.Arrays.fill(s, r * l, r * l + n, 1f / n);
                case "first" -> s[r * l] = 1f;
                default -> s[r * l + n - 1] = 1f;
            }
        }
        return s;
    }

    @Override
    public float[] parameter(String name) {
        NDArray p = params.get(name);
        if (p == null) {
            throw new IllegalArgumentException("no parameter " + name);
        }
        return p.toFloatArray();
    }

    @Override
    public void close() {
        manager.close();
    }
}

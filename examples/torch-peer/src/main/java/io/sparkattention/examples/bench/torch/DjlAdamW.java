package io.sparkattention.examples.bench.torch;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiPredicate;

/**
 * PyTorch's optimiser step on libtorch tensors, as a training loop on CPU runs it:
 * {@code clip_grad_norm_} over every gradient, then {@code torch.optim.AdamW} (or {@code Adam},
 * no decay) in its single-tensor form — the form PyTorch takes for CPU tensors — tensor by tensor:
 * decoupled decay {@code p ← p·(1 − lr·wd)} on the decayed tensors, the two moments, the
 * bias-corrected update. Call outside a gradient collector (libtorch's grad mode off), the
 * gradients of the last backward in place.
 */
final class DjlAdamW {

    /** clip_grad_norm_'s guard against a zero norm. */
    private static final double CLIP_EPS = 1e-6;

    private final List<NDArray> params = new ArrayList<>();
    private final List<NDArray[]> moments = new ArrayList<>();
    private final List<Boolean> decays = new ArrayList<>();
    private final double weightDecay, beta1, beta2, epsilon;
    private long steps;

    /**
     * @param params      every trainable parameter by name (their gradients are read after each backward)
     * @param decayed     which tensors weight decay applies to, given the name and the tensor
     * @param weightDecay AdamW's decoupled decay (0: Adam)
     * @param manager     the manager that owns the moments
     */
    DjlAdamW(Map<String, NDArray> params, BiPredicate<String, NDArray> decayed, double weightDecay, double beta1,
             double beta2, double epsilon, NDManager manager) {
        this.weightDecay = weightDecay;
        this.beta1 = beta1;
        this.beta2 = beta2;
        this.epsilon = epsilon;
        for (Map.Entry<String, NDArray> p : params.entrySet()) {
            NDArray value = p.getValue();
            this.params.add(value);
            moments.add(new NDArray[] {manager.zeros(value.getShape(), value.getDataType()),
                manager.zeros(value.getShape(), value.getDataType())});
            decays.add(decayed.test(p.getKey(), value));
        }
    }

    /** optimizer.zero_grad(): every parameter's gradient set to 0 in place (call once a backward has made them). */
    void zeroGradients() {
        for (NDArray p : params) {
            NDArray g = p.getGradient();
            g.subi(g);
        }
    }

    /**
     * clip_grad_norm_: every gradient scaled by maxNorm / (‖g‖ + 1e-6) when that is below 1 (the
     * norm over every gradient together); nothing when {@code maxNorm} ≤ 0. Returns the norm, or
     * NaN when not clipping.
     */
    double clip(double maxNorm) {
        if (maxNorm <= 0) {
            return Double.NaN;
        }
        double squares = 0;
        for (NDArray p : params) {
            squares += p.getGradient().toType(DataType.FLOAT64, false).square().sum().getDouble();
        }
        double norm = Math.sqrt(squares);
        double coefficient = maxNorm / (norm + CLIP_EPS);
        if (coefficient < 1) {
            for (NDArray p : params) {
                p.getGradient().muli(coefficient);
            }
        }
        return norm;
    }

    /** One step at learning rate {@code lr} (the schedule's value for this step). */
    void step(double lr) {
        steps++;
        double correction1 = 1 - Math.pow(beta1, steps), correction2 = 1 - Math.pow(beta2, steps);
        for (int i = 0; i < params.size(); i++) {
            NDArray p = params.get(i), g = p.getGradient();
            NDArray m = moments.get(i)[0], v = moments.get(i)[1];
            if (decays.get(i) && weightDecay != 0) {
                p.muli(1 - lr * weightDecay);
            }
            m.muli(beta1).addi(g.mul(1 - beta1));
            v.muli(beta2).addi(g.square().muli(1 - beta2));
            NDArray denominator = v.sqrt().divi(Math.sqrt(correction2)).addi(epsilon);
            p.subi(m.div(denominator).muli(lr / correction1));
        }
    }
}

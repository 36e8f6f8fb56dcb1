package io.sparkattention.bert;

import io.sparkattention.nn.GradientClipping;
import io.sparkattention.nn.GradientLayout;
import io.sparkattention.nn.GradientSums;
import io.sparkattention.nn.LearningRateSchedule;
import io.sparkattention.nn.Optimizer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fine-tuning fixtures (PyTorch autograd, float64) reproduced by {@link BertClassifierNetwork}
 * and the optimisers, full batch, in the loop the Estimator runs: rows summed in a fixed order,
 * divided by Σw, clipped, stepped at the schedule's rate: row by row through
 * {@link BertClassifierEvaluator#accumulate}, and as one stacked run through the engine's contract
 * ({@link BertClassifierEvaluator#add(List)}, flushed into {@link GradientSums}). Loss histories
 * and every final tensor within 1e-4 relative; the attention key biases (true gradient 0) within
 * lr per step.
 */
class BertFineTuneFixturesTest {

    static Stream<Arguments> cases() {
        return Stream.of(FineTuneFixture.CASES).flatMap(c -> Stream.of(Arguments.of(c, false), Arguments.of(c, true)));
    }

    @ParameterizedTest(name = "{0}, stacked {1}")
    @MethodSource("cases")
    void reproducesPyTorch(String name, boolean stacked) {
        FineTuneFixture f = FineTuneFixture.open(name);
        BertClassifierNetwork net = f.network();
        float[] theta = net.initialParameters();
        double lr = f.stepSize();
        Optimizer opt = f.config.get("solver").asText().equals("adamw")
            ? Optimizer.adamW(lr, f.config.get("weight_decay").asDouble(), net.parameters())
            : Optimizer.adam(lr, 0.0);
        LearningRateSchedule schedule = LearningRateSchedule.linearWarmup(f.config.get("warmup_steps").asInt(),
            f.steps());
        double maxNorm = f.config.get("max_grad_norm").asDouble();
        List<float[]> frozen = new ArrayList<>();
        for (int[] row : f.rows) {
            frozen.add(net.hasFrozenPrefix() ? net.frozenStates(row) : null);
        }
        double[] history = f.doubles("expected.loss_history");
        double keyBiasBound = 0;
        for (int t = 0; t < f.steps(); t++) {
            double[] grad = new double[net.parameterCount()];
            double loss = stacked ? stackedStep(net.bind(theta, true, 7L, t), f, frozen, grad)
                : step(net.bind(theta, 7L, t), f, frozen, grad);
            assertEquals(history[t], loss, 1e-4 * Math.abs(history[t]), name + ": loss before step " + t);
            if (maxNorm > 0) {
                GradientClipping.clipByGlobalNorm(grad, maxNorm);
            }
            opt.step(theta, grad, schedule.factor(t));
            keyBiasBound += lr * schedule.factor(t);
        }
        double finalLoss = stacked ? stackedStep(net.bind(theta, false, 0, 0), f, frozen, new double[net.parameterCount()])
            : step(net.bind(theta), f, frozen, new double[net.parameterCount()]);
        double expectedFinal = f.doubles("expected.final_loss")[0];
        assertEquals(expectedFinal, finalLoss, 1e-4 * Math.abs(expectedFinal), name + ": final loss");
        for (Map.Entry<String, float[]> e : net.stateDict(theta).entrySet()) {
            double[] ref = f.doubles("expected.final." + e.getKey());
            float[] got = e.getValue();
            assertEquals(ref.length, got.length, e.getKey());
            double maxRef = 0, maxDiff = 0;
            for (int i = 0; i < ref.length; i++) {
                maxRef = Math.max(maxRef, Math.abs(ref[i]));
                maxDiff = Math.max(maxDiff, Math.abs(got[i] - ref[i]));
            }
            if (e.getKey().endsWith("attention.self.key.bias")) {
                assertTrue(maxDiff <= keyBiasBound + 1e-7, name + ": " + e.getKey() + " moved " + maxDiff
                    + ", more than lr per step (" + keyBiasBound + ")");
            } else {
                assertTrue(maxDiff <= 1e-4 * maxRef, name + ": " + e.getKey() + " differs by " + maxDiff
                    + " (relative " + maxDiff / maxRef + ")");
            }
        }
    }

    /** Σ w·CE / Σ w over the rows in order, the gradient sums divided likewise. */
    private static double step(BertClassifierEvaluator ev, FineTuneFixture f, List<float[]> frozen, double[] grad) {
        double loss = 0, wsum = 0;
        for (int r = 0; r < f.rows.length; r++) {
            loss += ev.accumulate(f.rows[r], frozen.get(r), r, f.labels[r], f.weights[r], grad);
            wsum += f.weights[r];
        }
        for (int i = 0; i < grad.length; i++) {
            grad[i] /= wsum;
        }
        return loss / wsum;
    }

    /** {@link #step} as the engine runs it: the rows as one run, the gradient through {@link GradientSums}. */
    private static double stackedStep(BertClassifierEvaluator ev, FineTuneFixture f, List<float[]> frozen,
                                      double[] grad) {
        List<BertClassifierRow> run = new ArrayList<>();
        double wsum = 0;
        for (int r = 0; r < f.rows.length; r++) {
            run.add(new BertClassifierRow(f.rows[r], frozen.get(r), f.labels[r], f.weights[r], r));
            wsum += ev.weight(run.get(r));
        }
        double loss = ev.add(run);
        GradientSums sums = new GradientSums(GradientLayout.of(ev.network()));
        ev.flushInto(sums);
        double[] flat = sums.toFlat();
        for (int i = 0; i < grad.length; i++) {
            grad[i] = flat[i] / wsum;
        }
        return loss / wsum;
    }
}

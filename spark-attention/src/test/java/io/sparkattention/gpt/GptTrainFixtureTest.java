package io.sparkattention.gpt;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sparkattention.nn.GradientClipping;
import io.sparkattention.nn.GradientLayout;
import io.sparkattention.nn.GradientSums;
import io.sparkattention.nn.LearningRateSchedule;
import io.sparkattention.nn.Optimizer;
import io.sparkattention.nn.ParameterTensor;
import io.sparkattention.nn.TrainingEvaluator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The gpt_train_adamw_warmup_clip fixture (PyTorch autograd in float64: 8 full-batch AdamW steps,
 * decay on the 2-D tensors only, Hugging Face's linear warmup over 2 steps, clip_grad_norm_ at
 * 0.5, the tied wte) replayed through {@link GptTrainingNetwork} with the library's optimiser,
 * schedule and clipping: the loss before every step and after the last within 1e-4 relative, and
 * every final tensor within 1e-4 of its largest value, the key third of each c_attn bias (true
 * gradient 0) within the README's bound, lr per step. On the JVM's projection kernel (blocks
 * stacked when its rows are independent) and on BLAS.
 */
class GptTrainFixtureTest {

    @ParameterizedTest(name = "projections on {0}")
    @ValueSource(strings = {"the JVM's kernel", "blas"})
    void adamWWithWarmupAndClippingFollowsPyTorchFloat64(String kernel) throws IOException {
        GptFixture f = GptFixture.load("gpt_train_adamw_warmup_clip");
        JsonNode cfg = new ObjectMapper().readTree(f.st.metadata().get("config"));
        int steps = cfg.get("steps").asInt();
        double lr = cfg.get("step_size").asDouble();
        GptTrainingNetwork net = new GptTrainingNetwork(f.config, cfg.get("dropout").asDouble(),
            kernel.equals("blas") ? kernel : null);
        for (ParameterTensor t : net.parameters()) {
            assertEquals(t.shape().length == 2, t.decayed(), t.name() + ": decay on the 2-D tensors only");
        }
        float[] theta = net.flatten(f.weights);
        Optimizer adamW = Optimizer.adamW(lr, cfg.get("weight_decay").asDouble(), net.parameters());
        LearningRateSchedule schedule = LearningRateSchedule.linearWarmup(cfg.get("warmup_steps").asLong(), steps);
        double maxNorm = cfg.get("max_grad_norm").asDouble();
        List<TokenBlock> blocks = new ArrayList<>();
        for (int r = 0; r < f.rows.length; r++) {
            blocks.add(new TokenBlock(f.rows[r], 1.0, r));
        }
        double[] history = f.doubles("expected.loss_history");
        double lrSum = 0;
        double worstLoss = 0;
        double worstTensor = 0;
        for (int t = 0; t < steps; t++) {
            TrainingEvaluator<TokenBlock> ev = net.bind(theta, true, 17, t);
            double tokens = blocks.stream().mapToDouble(ev::weight).sum();
            GradientSums sums = new GradientSums(GradientLayout.of(net));
            double loss = ev.add(blocks) / tokens;
            ev.flushInto(sums);
            assertEquals(history[t], loss, 1e-4 * Math.abs(history[t]), "loss before step " + t);
            worstLoss = Math.max(worstLoss, Math.abs(loss - history[t]) / Math.abs(history[t]));
            double[] grad = sums.toFlat();
            for (int i = 0; i < grad.length; i++) {
                grad[i] /= tokens;
            }
            GradientClipping.clipByGlobalNorm(grad, maxNorm);
            adamW.step(theta, grad, schedule.factor(t));
            lrSum += lr * schedule.factor(t);
        }
        double finalLoss = f.doubles("expected.final_loss")[0];
        TrainingEvaluator<TokenBlock> eval = net.bind(theta, false, 0, 0);
        double loss = eval.loss(blocks) / blocks.stream().mapToDouble(eval::weight).sum();
        assertEquals(finalLoss, loss, 1e-4 * Math.abs(finalLoss), "loss after the last step");
        assertTrue(finalLoss < history[0], "the fixture trains");

        GptWeights trained = net.weights(theta);
        int E = f.config.hidden();
        for (String name : GptWeights.shapes(f.config).keySet()) {
            double[] expected = f.doubles("expected.final." + name);
            float[] actual = trained.tensor(name);
            double largest = 0;
            for (double e : expected) {
                largest = Math.max(largest, Math.abs(e));
            }
            for (int i = 0; i < expected.length; i++) {
                boolean keyBias = name.endsWith("attn.c_attn.bias") && i >= E && i < 2 * E;
                double bound = keyBias ? lrSum : 1e-4 * largest;
                double err = Math.abs(actual[i] - expected[i]);
                if (!keyBias) {
                    worstTensor = Math.max(worstTensor, err / largest);
                }
                assertTrue(err <= bound, name + "[" + i + "] = " + actual[i] + ", PyTorch " + expected[i]
                    + " (error " + err + " > " + bound + ")");
            }
        }
        assertFalse(java.util.Arrays.equals(theta, net.flatten(f.weights)), "the parameters moved");
        System.out.printf("gpt_train_adamw_warmup_clip on %s: loss history within %.2e relative, final tensors within"
            + " %.2e of their largest value%n", kernel, worstLoss, worstTensor);
    }
}

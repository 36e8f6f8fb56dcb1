package io.sparkattention.ml.training;

import io.sparkattention.nn.Optimizer;
import io.sparkattention.nn.ParameterTensor;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** {@link TrainingSettings}: the optimiser a solver names and the schedule the warmup gives. */
class TrainingSettingsTest {

    private static final List<ParameterTensor> LAYOUT = List.of(ParameterTensor.of("w.weight", 0, 2),
        ParameterTensor.of("w.bias", 2, 2));

    private static TrainingSettings settings(String solver, double weightDecay, int warmupSteps) {
        return new TrainingSettings(solver, 0.1, weightDecay, warmupSteps, 0, 10, 1.0, 0, 3);
    }

    /** θ after one step of {@code optimizer} from θ = 1 with gradient 1 at the full learning rate. */
    private static float[] oneStep(Optimizer optimizer) {
        float[] theta = {1, 1, 1, 1};
        optimizer.step(theta, new double[] {1, 1, 1, 1});
        return theta;
    }

    @Test
    @DisplayName("gd, adam (AdamW over every tensor with weight decay) and adamw (no decay on biases) are PyTorch's")
    void solvers() {
        assertArrayEquals(oneStep(Optimizer.gradientDescent(0.1)), oneStep(settings("gd", 0, -1).optimizer(LAYOUT)));
        assertArrayEquals(oneStep(Optimizer.adam(0.1, 0.5)), oneStep(settings("adam", 0.5, -1).optimizer(LAYOUT)));
        float[] grouped = oneStep(settings("adamw", 0.5, -1).optimizer(LAYOUT));
        assertArrayEquals(oneStep(Optimizer.adamW(0.1, 0.5, LAYOUT)), grouped);
        assertEquals(grouped[0], grouped[1]);
        assertEquals(oneStep(Optimizer.adam(0.1, 0))[2], grouped[2], "the bias is not decayed");
        assertThrows(IllegalArgumentException.class, () -> settings("sgd", 0, -1).optimizer(LAYOUT));
    }

    @Test
    @DisplayName("without warmup (-1) the rate is constant; with it, Hugging Face's linear warmup and decay to maxIter")
    void schedules() {
        assertEquals(1.0, settings("adam", 0, -1).schedule().factor(7));
        assertEquals(0.0, settings("adamw", 0, 2).schedule().factor(0));
        assertEquals(0.5, settings("adamw", 0, 2).schedule().factor(1));
        assertEquals(0.5, settings("adamw", 0, 2).schedule().factor(6), 1e-15);
    }
}

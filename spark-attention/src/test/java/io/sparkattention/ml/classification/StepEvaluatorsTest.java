package io.sparkattention.ml.classification;

import io.sparkattention.nn.AttentionClassifierNetwork;
import io.sparkattention.nn.ClassifierEvaluator;
import io.sparkattention.nn.Pooling;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

class StepEvaluatorsTest {

    private static final int E = 16;
    private final AttentionClassifierNetwork network = new AttentionClassifierNetwork(E, 4, 3, false, true,
        Pooling.MEAN);

    @Test
    @DisplayName("a thread reuses its evaluator for the same parameter array and makes a new one for the next step's")
    void reusedPerStep() {
        float[] step0 = network.initialParameters(1);
        ClassifierEvaluator first = StepEvaluators.forStep(network, step0);
        assertSame(first, StepEvaluators.forStep(network, step0));
        float[] step1 = step0.clone();
        ClassifierEvaluator next = StepEvaluators.forStep(network, step1);
        assertNotSame(first, next);
        assertSame(next, StepEvaluators.forStep(network, step1));
    }

    @Test
    @DisplayName("a reused evaluator gives a row the bits a fresh one gives, whatever rows it saw before")
    void reuseChangesNoBit() {
        float[] theta = network.initialParameters(7);
        Random random = new Random(3);
        ClassifierEvaluator reused = StepEvaluators.forStep(network, theta);
        for (int length : new int[] {9, 2, 5}) {
            reused.accumulate(rows(random, length), length, 1, 1.0, new double[network.parameterCount()]);
        }
        float[] x = rows(random, 6);
        double[] gotGrad = new double[network.parameterCount()];
        double gotLoss = StepEvaluators.forStep(network, theta).accumulate(x, 6, 2, 0.5, gotGrad);
        double[] wantGrad = new double[network.parameterCount()];
        double wantLoss = network.bind(theta).accumulate(x, 6, 2, 0.5, wantGrad);
        assertEquals(wantLoss, gotLoss, 0.0);
        assertArrayEquals(wantGrad, gotGrad, 0.0);
    }

    private static float[] rows(Random random, int length) {
        float[] x = new float[length * E];
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) random.nextGaussian();
        }
        return x;
    }
}

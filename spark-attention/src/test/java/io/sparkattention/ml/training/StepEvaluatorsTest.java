package io.sparkattention.ml.training;

import io.sparkattention.bert.BertClassifierEvaluator;
import io.sparkattention.bert.BertClassifierNetwork;
import io.sparkattention.bert.BertClassifierSettings;
import io.sparkattention.bert.BertConfig;
import io.sparkattention.bert.BertWeights;
import io.sparkattention.nn.AttentionClassifierNetwork;
import io.sparkattention.nn.ClassifierEvaluator;
import io.sparkattention.nn.Pooling;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

class StepEvaluatorsTest {

    private static final int E = 16;
    private final AttentionClassifierNetwork network = new AttentionClassifierNetwork(E, 4, 3, false, true,
        Pooling.MEAN);

    @Test
    @DisplayName("a thread reuses its evaluator for the same parameter array and makes a new one for the next step's")
    void reusedPerStep() {
        float[] step0 = network.initialParameters(1);
        ClassifierEvaluator first = StepEvaluators.forStep(network, step0, true, () -> network.bind(step0));
        assertSame(first, StepEvaluators.forStep(network, step0, true, () -> network.bind(step0)));
        float[] step1 = step0.clone();
        ClassifierEvaluator next = StepEvaluators.forStep(network, step1, true, () -> network.bind(step1));
        assertNotSame(first, next);
        assertSame(next, StepEvaluators.forStep(network, step1, true, () -> network.bind(step1)));
    }

    @Test
    @DisplayName("a reused evaluator gives a row the bits a fresh one gives, whatever rows it saw before")
    void reuseChangesNoBit() {
        float[] theta = network.initialParameters(7);
        Random random = new Random(3);
        ClassifierEvaluator reused = StepEvaluators.forStep(network, theta, true, () -> network.bind(theta));
        for (int length : new int[] {9, 2, 5}) {
            reused.accumulate(rows(random, length), length, 1, 1.0, new double[network.parameterCount()]);
        }
        float[] x = rows(random, 6);
        double[] gotGrad = new double[network.parameterCount()];
        double gotLoss = StepEvaluators.forStep(network, theta, true, () -> network.bind(theta))
            .accumulate(x, 6, 2, 0.5, gotGrad);
        double[] wantGrad = new double[network.parameterCount()];
        double wantLoss = network.bind(theta).accumulate(x, 6, 2, 0.5, wantGrad);
        assertEquals(wantLoss, gotLoss, 0.0);
        assertArrayEquals(wantGrad, gotGrad, 0.0);
    }

    @Test
    @DisplayName("a BERT step's evaluator is kept per (network, parameters, mode), and reused with dropout on it "
        + "gives a row the bits a fresh binding gives")
    void bertReuseChangesNoBit() {
        BertClassifierNetwork bert = smallBert();
        float[] theta = bert.initialParameters();
        long seed = 5, step = 2;
        BertClassifierEvaluator training = StepEvaluators.forStep(bert, theta, true, () -> bert.bind(theta, seed, step));
        assertSame(training, StepEvaluators.forStep(bert, theta, true, () -> bert.bind(theta, seed, step)));
        BertClassifierEvaluator eval = StepEvaluators.forStep(bert, theta, false, () -> bert.bind(theta));
        assertNotSame(training, eval, "the eval binding is another evaluator");
        BertClassifierEvaluator reused = StepEvaluators.forStep(bert, theta, true, () -> bert.bind(theta, seed, step));
        Random random = new Random(9);
        for (int length : new int[] {11, 3, 7}) {
            reused.accumulate(ids(random, length), null, length, 1, 1.0, new double[bert.parameterCount()]);
        }
        int[] row = ids(random, 6);
        double[] gotGrad = new double[bert.parameterCount()];
        double gotLoss = reused.accumulate(row, null, 77, 2, 0.5, gotGrad);
        double[] wantGrad = new double[bert.parameterCount()];
        double wantLoss = bert.bind(theta, seed, step).accumulate(row, null, 77, 2, 0.5, wantGrad);
        assertEquals(wantLoss, gotLoss, 0.0);
        assertArrayEquals(wantGrad, gotGrad, 0.0);
    }

    @Test
    @DisplayName("a released BERT evaluator leaves its buffers to the next one of its network, which computes the bits "
        + "of new buffers even after rows were left pending; the released one refuses to run")
    void releasedBuffersChangeNoBit() {
        BertClassifierNetwork bert = smallBert();
        float[] theta = bert.initialParameters();
        Random random = new Random(12);
        BertClassifierEvaluator first = bert.bind(theta, 5, 1);
        for (int length : new int[] {14, 4}) {
            first.add(ids(random, length), null, length, 1, 1.0);  // pending, never flushed
        }
        first.release();
        assertThrows(IllegalStateException.class, () -> first.add(ids(random, 3), null, 1, 0, 1.0));
        BertClassifierEvaluator reused = bert.bind(theta, 5, 2);  // takes first's buffers
        BertClassifierEvaluator fresh = bert.bind(theta, 5, 2);   // no spare left: new buffers
        int[] row = ids(random, 9);
        double[] gotGrad = new double[bert.parameterCount()];
        double[] wantGrad = new double[bert.parameterCount()];
        assertEquals(fresh.accumulate(row, null, 4, 1, 0.5, wantGrad), reused.accumulate(row, null, 4, 1, 0.5, gotGrad),
            0.0);
        assertArrayEquals(wantGrad, gotGrad, 0.0);
    }

    /** 2 layers, E = 8, 2 heads, 30 ids, 16 positions, 3 classes, everything trainable, dropout 0.2. */
    private static BertClassifierNetwork smallBert() {
        BertConfig config = new BertConfig(2, 8, 2, 16, 16, 30, 2, 1e-12f);
        Random random = new Random(4);
        Map<String, float[]> tensors = new LinkedHashMap<>();
        for (Map.Entry<String, long[]> e : BertWeights.shapes(config).entrySet()) {
            long size = 1;
            for (long d : e.getValue()) {
                size *= d;
            }
            float[] t = new float[(int) size];
            boolean norm = e.getKey().contains("LayerNorm.weight");
            for (int i = 0; i < t.length; i++) {
                t[i] = (float) ((norm ? 1 : 0) + random.nextGaussian() * (norm ? 0.05 : 0.3));
            }
            tensors.put(e.getKey(), t);
        }
        float[] headW = new float[3 * 8];
        for (int i = 0; i < headW.length; i++) {
            headW[i] = (float) (random.nextGaussian() * 0.3);
        }
        return new BertClassifierNetwork(new BertWeights(config, tensors), headW, new float[3],
            new BertClassifierSettings(-1, Pooling.MEAN, 0.2));
    }

    private static int[] ids(Random random, int length) {
        int[] ids = new int[length];
        for (int i = 0; i < length; i++) {
            ids[i] = random.nextInt(30);
        }
        return ids;
    }

    private static float[] rows(Random random, int length) {
        float[] x = new float[length * E];
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) random.nextGaussian();
        }
        return x;
    }
}

package io.sparkattention.examples.bench;

import io.sparkattention.ml.classification.TrainingListener;
import io.sparkattention.nn.AttentionClassifierNetwork;
import io.sparkattention.nn.ParameterTensor;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * PyTorch's side of {@code bench --train --peer torch}: the attention classifier on libtorch
 * ({@link TorchClassifierTrainer}) from the fit's own initial weights
 * ({@link AttentionClassifierNetwork#initialParameters} at the fit's seed), stepping on the same
 * B rows (rebuilt on the driver from their ids as {@link RandomMatrix} makes them on the
 * executors; label = id mod K) with the same loss and Adam at the same rate. As the fit's
 * training listener it takes its step, timed, each time the fit reports a step's loss — after
 * that step's job has ended and before the driver's update, so Spark is idle while PyTorch runs
 * (the fine-tuning benchmark's round-robin); at the fit's final loss it computes its own, untimed. It records how long each call held the driver, which
 * the train benchmark takes out of our step's interval.
 */
final class TorchTrainPeer implements TrainingListener, AutoCloseable {

    private final TorchClassifierTrainer trainer;
    private final TorchClassifierTrainer.Batch batch;
    private final double[] stepMs, loss, heldMs;
    private double finalLoss = Double.NaN;
    private int calls;

    /**
     * @param network the fit's network (residual, mean pooling, K classes)
     * @param seed    the fit's seed: of its initial weights and of the rows
     * @param rows    B, the rows of every step (ids 0 … B − 1)
     * @param seqLen  L
     * @param steps   PyTorch's steps: one in each of the fit's first {@code steps} loss reports
     */
    TorchTrainPeer(TorchRuntime torch, AttentionClassifierNetwork network, long seed, double stepSize, int rows,
                   int seqLen, int steps) {
        float[] theta = network.initialParameters(seed);
        Map<String, float[]> initial = new LinkedHashMap<>();
        for (ParameterTensor t : network.parameters()) {
            initial.put(t.name(), t.slice(theta));
        }
        TorchClassifierTrainer.Spec spec = new TorchClassifierTrainer.Spec(network.embedDim(), network.numHeads(),
            network.numClasses(), network.causal(), network.residual(), network.pooling().paramValue(), stepSize, 0.0);
        this.trainer = torch.classifierTrainer(initial, spec);
        this.batch = TorchClassifierTrainer.Batch.full(tokens(seed, rows, seqLen, network.embedDim()), seqLen,
            labels(rows, network.numClasses()));
        this.stepMs = new double[steps];
        this.loss = new double[steps];
        this.heldMs = new double[steps + 1];
    }

    /** Rows 0 … B − 1 as {@link RandomMatrix} generates them, B×L×E row-major. */
    static float[] tokens(long seed, int rows, int seqLen, int embedDim) {
        float[] tokens = new float[rows * seqLen * embedDim];
        for (int r = 0, at = 0; r < rows; r++) {
            SplittableRandom random = RandomMatrix.random(seed, r);
            for (int i = 0; i < seqLen * embedDim; i++) {
                tokens[at++] = (float) (random.nextDouble() * 2 - 1);
            }
        }
        return tokens;
    }

    private static int[] labels(int rows, int numClasses) {
        int[] labels = new int[rows];
        for (int r = 0; r < rows; r++) {
            labels[r] = r % numClasses;
        }
        return labels;
    }

    @Override
    public void onLoss(int iteration, double value) {
        long entered = System.nanoTime();
        if (calls < stepMs.length) {
            loss[calls] = trainer.step(batch);
            stepMs[calls] = (System.nanoTime() - entered) / 1e6;
        } else if (calls == stepMs.length) {
            finalLoss = trainer.loss(batch);  // the fit's final loss: both at their final weights
        }
        if (calls < heldMs.length) {
            heldMs[calls] = (System.nanoTime() - entered) / 1e6;
        }
        calls++;
    }

    /** PyTorch's step times, one per step. */
    double[] stepMs() {
        return stepMs.clone();
    }

    /** PyTorch's loss before each of its steps. */
    double[] loss() {
        return loss.clone();
    }

    /** PyTorch's loss at its final weights, once the fit has reported its own final loss (NaN before). */
    double finalLoss() {
        return finalLoss;
    }

    /** How long the listener's call after step i's job held the driver, i = 0 … steps (the final loss's call last). */
    double heldMs(int step) {
        return heldMs[step];
    }

    /** The fit's loss reports so far. */
    int calls() {
        return calls;
    }

    @Override
    public void close() {
        trainer.close();
    }
}

package io.sparkattention.examples.bench;

import io.sparkattention.bert.BertEncoder;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The fine-tuning peer alone ({@code bench --fine-tune --peer torch --peer-only}): PyTorch's steps
 * on the benchmark's batch with no Spark session and no fit of ours in the JVM, to check the
 * round-robin's PyTorch figures against. The steps are the round-robin's
 * ({@link FineTuneBenchmark#torchSpec}: same weights, head, batch, AdamW, dropout and clipping);
 * {@link FineTuneBenchmark#WARMUP_STEPS} untimed steps come first. When the JVM sees the Vector
 * API, one repetition of the FMA loop follows each step, as in the round-robin, and the line
 * carries {@code fraction_of_fma}: the loop is the yardstick of the machine's state that makes
 * figures of a shared machine comparable between runs.
 */
final class TorchFineTuneAlone {

    private TorchFineTuneAlone() {
    }

    /** PyTorch's line ({@code torch_fine_tune}, {@code peer_only} true), then the FMA loop's when it ran. */
    static List<BenchResult> run(TorchRuntime torch, BertEncoder encoder, FineTuneBatch batch, int repeat) {
        int k = batch.classes();
        double work = FineTuneBenchmark.stepFlops(encoder, batch);
        Trial loop = ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent()
            ? FmaPeak.beside(work, torch.threads()) : null;
        int steps = FineTuneBenchmark.WARMUP_STEPS + repeat;
        double[] stepMs = new double[steps], loopMs = new double[steps], losses = new double[steps];
        try (TorchRuntime.FineTuner tuner = torch.fineTuner(TorchPeers.tensors(encoder),
            FineTuneBenchmark.torchSpec(FineTuneBenchmark.headWeight(k, encoder.config().hidden()), k))) {
            double initialLoss = tuner.loss(batch.ids(), batch.labels());
            for (int s = 0; s < steps; s++) {
                long t0 = System.nanoTime();
                losses[s] = tuner.step(batch.ids(), batch.labels());
                stepMs[s] = (System.nanoTime() - t0) / 1e6;
                if (loop != null) {
                    long l0 = System.nanoTime();
                    loop.runOnce();
                    loopMs[s] = (System.nanoTime() - l0) / 1e6;
                }
            }
            int w = FineTuneBenchmark.WARMUP_STEPS;
            BenchResult line = BenchResult.fineTune("torch_fine_tune", batch.rows(), batch.tokens(), torch.threads(),
                    Arrays.copyOfRange(stepMs, w, steps), torch.version())
                .with("peer_only", true)
                .with("batching", "padded to the longest, attention mask")
                .with("padding_share", Math.round(FineTuneBenchmark.paddingShare(batch) * 10000) / 10000.0)
                .with("warmup_steps", w)
                .with("warmup_step_ms", Arrays.copyOf(stepMs, w))
                .with("loss_initial_eval", initialLoss)
                .with("loss_first", losses[0])
                .with("loss_last", losses[steps - 1])
                .withAll(torch.settings());
            line.with("gflops", Math.round(work / (line.medianStepMs() * 1e6) * 1000) / 1000.0);
            List<BenchResult> lines = new ArrayList<>(List.of(line));
            if (loop != null) {
                BenchResult roof = loop.result(Arrays.copyOfRange(loopMs, w, steps), new double[repeat]);
                FmaPeak.addFractions(lines, roof);
                lines.add(roof);
            }
            return lines;
        } finally {
            if (loop != null) {
                loop.close();
            }
        }
    }
}

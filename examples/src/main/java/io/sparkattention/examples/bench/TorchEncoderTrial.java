package io.sparkattention.examples.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * PyTorch 2.7.1 ({@link TorchRuntime#encoder}) on the benchmark's texts, fed as
 * sentence-transformers feeds it: sorted by length in batches of 32, each padded to its longest
 * with an attention mask ({@link EncoderBatching#SORTED32}), the input tensors made once here.
 * Every run reads the states back and pools each text's sentence embedding over its own tokens,
 * as {@link OrtEncoderTrial} does. One untimed pass runs when the trial is made.
 */
final class TorchEncoderTrial implements Trial {

    private final TorchRuntime runtime;
    private final TorchRuntime.Encoder encoder;
    private final EncoderTexts texts;
    private final EncoderBatching batching = EncoderBatching.SORTED32;
    private final List<int[]> plan;
    private final List<TorchRuntime.Batch> batches = new ArrayList<>();
    private final double paddingShare;
    private final int hidden;
    private final SentenceEmbeddings embeddings;

    TorchEncoderTrial(TorchRuntime runtime, TorchRuntime.BertTensors weights, EncoderTexts texts) {
        this.runtime = runtime;
        this.texts = texts;
        this.hidden = (int) weights.shapes().get("embeddings.LayerNorm.weight")[0];
        this.embeddings = new SentenceEmbeddings(texts.count());
        int[] lengths = OrtEncoderTrial.lengths(texts.ids());
        this.plan = batching.batches(lengths);
        this.paddingShare = EncoderBatching.paddingShare(plan, lengths);
        this.encoder = runtime.encoder(weights);
        try {
            for (int[] rows : plan) {
                int[][] ids = new int[rows.length][];
                for (int r = 0; r < rows.length; r++) {
                    ids[r] = texts.ids()[rows[r]];
                }
                batches.add(encoder.batch(ids));
            }
            runOnce();
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** The sentence embeddings of the last pass. */
    SentenceEmbeddings embeddings() {
        return embeddings;
    }

    @Override
    public void runOnce() {
        for (int b = 0; b < batches.size(); b++) {
            TorchRuntime.Batch batch = batches.get(b);
            int[] rows = plan.get(b);
            float[] states = batch.run();
            for (int r = 0; r < rows.length; r++) {
                embeddings.pool(rows[r], states, r * batch.longest() * hidden, texts.ids()[rows[r]].length, hidden);
            }
        }
    }

    @Override
    public boolean shortRun() {
        return work() <= KernelBenchmark.UNTIMED_RUN_MAX_FLOPS;
    }

    private double work() {
        return BenchResult.encoderFlops(texts.ids(), OrtEncoderTrial.LAYERS, hidden, OrtEncoderTrial.INTERMEDIATE);
    }

    @Override
    public BenchResult result(double[] wallMs, double[] cpuMs) {
        double checksum = embeddings.checksum();
        if (!Double.isFinite(checksum)) {
            throw new IllegalStateException("PyTorch produced a non-finite output (checksum " + checksum + ")");
        }
        return BenchResult.encoder("torch_encoder", texts, runtime.threads(), wallMs, work(), runtime.version())
            .withCpuTimes(cpuMs, work())
            .with("batching", batching.label())
            .with("batch_size", batching.batchSize())
            .with("padding_share", Math.round(paddingShare * 10000) / 10000.0)
            .with("checksum", checksum)
            .withAll(runtime.settings());
    }

    @Override
    public void close() {
        batches.forEach(TorchRuntime.Batch::close);
        encoder.close();
    }
}

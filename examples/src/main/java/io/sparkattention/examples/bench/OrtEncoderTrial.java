package io.sparkattention.examples.bench;

import ai.onnxruntime.OrtException;

import java.util.ArrayList;
import java.util.List;

/**
 * {@link OrtEncoder} on the benchmark's texts, batched as its users batch them
 * ({@link EncoderBatching}): one session run per padded batch, its input tensors made once here.
 * Every run reads the output back and pools each text's sentence embedding over its own tokens,
 * as a user's loop does. One untimed pass runs when the trial is made.
 */
final class OrtEncoderTrial implements Trial {

    /** all-MiniLM-L6-v2's shape, for the work count. */
    static final int LAYERS = 6, INTERMEDIATE = 1536;

    private final OrtEncoder ort;
    private final EncoderTexts texts;
    private final EncoderBatching batching;
    private final List<OrtEncoder.Batch> batches = new ArrayList<>();
    private final double paddingShare;
    private final SentenceEmbeddings embeddings;

    OrtEncoderTrial(OrtEncoder ort, EncoderTexts texts, EncoderBatching batching) {
        this.ort = ort;
        this.texts = texts;
        this.batching = batching;
        this.embeddings = new SentenceEmbeddings(texts.count());
        int[] lengths = lengths(texts.ids());
        List<int[]> plan = batching.batches(lengths);
        this.paddingShare = EncoderBatching.paddingShare(plan, lengths);
        try {
            for (int[] rows : plan) {
                batches.add(ort.new Batch(rows, texts.ids()));
            }
        } catch (OrtException e) {
            close();
            throw new IllegalStateException("ONNX Runtime input: " + e.getMessage(), e);
        }
        runOnce();
    }

    static int[] lengths(int[][] ids) {
        int[] lengths = new int[ids.length];
        for (int i = 0; i < ids.length; i++) {
            lengths[i] = ids[i].length;
        }
        return lengths;
    }

    /** The sentence embeddings of the last pass. */
    SentenceEmbeddings embeddings() {
        return embeddings;
    }

    @Override
    public void runOnce() {
        for (OrtEncoder.Batch batch : batches) {
            batch.run((text, states, offset, length) -> embeddings.pool(text, states, offset, length,
                OrtEncoder.HIDDEN));
        }
    }

    @Override
    public boolean shortRun() {
        return work() <= KernelBenchmark.UNTIMED_RUN_MAX_FLOPS;
    }

    private double work() {
        return BenchResult.encoderFlops(texts.ids(), LAYERS, OrtEncoder.HIDDEN, INTERMEDIATE);
    }

    @Override
    public BenchResult result(double[] wallMs, double[] cpuMs) {
        double checksum = embeddings.checksum();
        if (!Double.isFinite(checksum)) {
            throw new IllegalStateException("ONNX Runtime produced a non-finite output (checksum " + checksum + ")");
        }
        return BenchResult.encoder("ort_encoder", texts, ort.threads(), wallMs, work(),
                "onnxruntime " + OrtBenchmark.ortVersion())
            .withCpuTimes(cpuMs, work())
            .with("batching", batching.label())
            .with("batch_size", batching.batchSize())
            .with("padding_share", Math.round(paddingShare * 10000) / 10000.0)
            .with("model", BundledMiniLm.ONNX)
            .with("checksum", checksum);
    }

    @Override
    public void close() {
        batches.forEach(OrtEncoder.Batch::close);
    }
}

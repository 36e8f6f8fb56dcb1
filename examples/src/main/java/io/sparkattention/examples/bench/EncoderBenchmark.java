package io.sparkattention.examples.bench;

import io.sparkattention.bert.BertEncoder;

import java.util.ArrayList;
import java.util.List;

/**
 * The encoder benchmark in this JVM ({@code bench --encoder}): the contenders on the same texts,
 * round-robin ({@link Interleaved}), one line each. The raw encoder ({@link RawEncoderTrial}) runs
 * the texts unpadded on T threads; ONNX Runtime runs the bundled ONNX file with T intra-op threads
 * twice, sorted in batches of 32 and in input order in batches of 8 ({@link EncoderBatching}). The
 * raw encoder's line carries {@code throughput_vs_ort} (ONNX Runtime sorted32's median time over
 * its own) and {@code throughput_vs_ort_inorder8}. PyTorch ({@link TorchEncoderTrial}) runs the same
 * weights sorted in batches of 32, and the raw encoder's line then carries
 * {@code throughput_vs_torch}. Every later line carries
 * {@code max_abs_diff_vs_first}, the largest difference of a sentence embedding's component from
 * the first contender's, which checks that they compute the same thing. When the JVM sees the
 * Vector API, the FMA loop ({@link FmaPeak#beside}) runs on the same T threads in the same rounds,
 * its line (mode "fma") last, and every contender's line carries {@code fraction_of_fma}: its
 * gflops (the texts' own work, {@link BenchResult#encoderFlops}, over its median time) over the
 * loop's.
 */
public final class EncoderBenchmark {

    private EncoderBenchmark() {
    }

    /** The texts' work through all-MiniLM-L6-v2, every contender's ({@link BenchResult#encoderFlops}). */
    private static double work(EncoderTexts texts) {
        return BenchResult.encoderFlops(texts.ids(), OrtEncoderTrial.LAYERS, OrtEncoder.HIDDEN,
            OrtEncoderTrial.INTERMEDIATE);
    }

    /**
     * Times the contenders on {@code texts}.
     *
     * @param encoder the raw encoder (PyTorch's weights), or null to time ONNX Runtime alone
     * @param raw     whether the raw encoder runs (false: the peers alone, {@code peer_only} on their lines)
     * @param ort     whether ONNX Runtime runs (both batchings)
     * @param torch   PyTorch's runtime, or null when it does not run
     * @return the raw encoder's line, then ONNX Runtime's sorted32 and inorder8, then PyTorch's, then the
     *         FMA loop's
     */
    public static List<BenchResult> run(EncoderTexts texts, BertEncoder encoder, boolean raw, boolean ort,
                                        TorchRuntime torch, int threads, int repeat) {
        List<Trial> trials = new ArrayList<>();
        List<SentenceEmbeddings> outputs = new ArrayList<>();
        OrtEncoder session = null;
        try {
            boolean ours = encoder != null && raw;
            if (ours) {
                RawEncoderTrial trial = new RawEncoderTrial(encoder, texts, threads);
                trials.add(trial);
                outputs.add(trial.embeddings());
            }
            if (ort) {
                session = new OrtEncoder(threads);
                for (EncoderBatching batching : EncoderBatching.values()) {
                    OrtEncoderTrial peer = new OrtEncoderTrial(session, texts, batching);
                    trials.add(peer);
                    outputs.add(peer.embeddings());
                }
            }
            int torchLine = -1;
            if (torch != null) {
                if (encoder == null) {
                    throw new IllegalArgumentException("PyTorch runs the raw encoder's weights: give the encoder");
                }
                TorchEncoderTrial peer = new TorchEncoderTrial(torch, TorchPeers.tensors(encoder), texts);
                torchLine = trials.size();
                trials.add(peer);
                outputs.add(peer.embeddings());
            }
            int contenders = trials.size();
            boolean fma = ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();
            if (fma) {
                trials.add(FmaPeak.beside(work(texts), threads));
            }
            List<BenchResult> results = Interleaved.time(trials, repeat);
            if (fma) {
                FmaPeak.addFractions(results.subList(0, contenders), results.get(contenders));
            }
            for (int i = 1; i < contenders; i++) {
                results.get(i).with("max_abs_diff_vs_first", outputs.get(0).maxAbsDiff(outputs.get(i)));
            }
            if (ours && ort) {
                BenchResult line = results.get(0);
                line.with("throughput_vs_ort", SparkLayerBenchmark.ratio(results.get(1), line));
                line.with("throughput_vs_ort_inorder8", SparkLayerBenchmark.ratio(results.get(2), line));
            }
            if (!ours) {
                results.subList(0, contenders).forEach(line -> line.with("peer_only", true));
            } else if (torch != null) {
                results.get(0).with("throughput_vs_torch", SparkLayerBenchmark.ratio(results.get(torchLine), results.get(0)));
            }
            return results;
        } finally {
            trials.forEach(Trial::close);
            if (session != null) {
                session.close();
            }
        }
    }
}

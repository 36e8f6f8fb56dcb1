package io.sparkattention.examples.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * The encoder benchmark in this JVM ({@code bench --encoder}): the contenders on the same texts,
 * round-robin ({@link Interleaved}), one line each. ONNX Runtime runs the bundled ONNX file twice,
 * sorted in batches of 32 and in input order in batches of 8 ({@link EncoderBatching}); its lines
 * carry {@code max_abs_diff_vs_first}: the largest difference of a sentence embedding's component
 * from the first contender's, which checks that they compute the same thing.
 */
public final class EncoderBenchmark {

    private EncoderBenchmark() {
    }

    /**
     * Times ONNX Runtime's batchings on {@code texts} with {@code threads} intra-op threads.
     *
     * @return one line per batching, sorted32 first
     */
    public static List<BenchResult> ort(EncoderTexts texts, int threads, int repeat) {
        List<Trial> trials = new ArrayList<>();
        try (OrtEncoder ort = new OrtEncoder(threads)) {
            try {
                for (EncoderBatching batching : EncoderBatching.values()) {
                    trials.add(new OrtEncoderTrial(ort, texts, batching));
                }
                List<BenchResult> results = Interleaved.time(trials, repeat);
                SentenceEmbeddings first = ((OrtEncoderTrial) trials.get(0)).embeddings();
                for (int i = 1; i < trials.size(); i++) {
                    results.get(i).with("max_abs_diff_vs_first",
                        first.maxAbsDiff(((OrtEncoderTrial) trials.get(i)).embeddings()));
                }
                return results;
            } finally {
                trials.forEach(Trial::close);
            }
        }
    }
}

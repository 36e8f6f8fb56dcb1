package io.sparkattention.examples.bench;

import io.sparkattention.bert.BertEncoder;
import io.sparkattention.bert.EncoderLayerParts;
import io.sparkattention.io.BundledModels;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Where one encoder layer's time goes ({@code bench --layer-split}): all-MiniLM-L6-v2's first
 * layer on {@value #SEQUENCES} stacked sequences of seeded lengths in [{@value #MIN_LENGTH},
 * {@value #MAX_LENGTH}] (the Austen passages' range around their ~57-token mean), on this thread,
 * each part of {@link EncoderLayerParts} and the whole layer timed round-robin by
 * {@link Interleaved} (so their ratios hold on a shared machine). Each line carries
 * {@code share_of_layer}: its median over the whole layer's median in the same rounds; the
 * whole layer's line carries {@code parts_over_layer}, the sum of the parts' medians over it.
 */
public final class LayerSplitBenchmark {

    /** Sequences stacked, as one of the encoder stage's sorted groups of 32. */
    static final int SEQUENCES = 32;
    /** Shortest sequence. */
    static final int MIN_LENGTH = 24;
    /** Longest sequence. */
    static final int MAX_LENGTH = 96;
    /** Layer repetitions per timed run of a part: enough that the shortest part runs about a millisecond. */
    static final int RUNS_PER_REPETITION = 4;

    private LayerSplitBenchmark() {
    }

    /** One line per part, then the whole layer's. */
    public static List<BenchResult> run(int repeat) throws IOException {
        BertEncoder encoder = BundledModels.encoder(BundledModels.ALL_MINILM_L6_V2);
        SplittableRandom random = new SplittableRandom(11);
        int[] lengths = new int[SEQUENCES];
        int tokens = 0;
        for (int r = 0; r < SEQUENCES; r++) {
            lengths[r] = random.nextInt(MIN_LENGTH, MAX_LENGTH + 1);
            tokens += lengths[r];
        }
        java.util.Arrays.sort(lengths);
        float[] x = new float[tokens * encoder.config().hidden()];
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) (random.nextDouble() * 2 - 1);
        }
        EncoderLayerParts parts = new EncoderLayerParts(encoder.config(), encoder.weights().layer(0), lengths, x);
        List<Trial> trials = new ArrayList<>();
        for (int p = 0; p < EncoderLayerParts.PARTS.size(); p++) {
            int part = p;
            trials.add(trial(EncoderLayerParts.PARTS.get(p), () -> parts.run(part), parts.tokens()));
        }
        trials.add(trial("layer", parts::whole, parts.tokens()));
        List<BenchResult> results = Interleaved.time(trials, repeat);
        double layer = results.get(results.size() - 1).medianMs(), sum = 0;
        for (int i = 0; i < results.size() - 1; i++) {
            sum += results.get(i).medianMs();
            results.get(i).with("share_of_layer", Math.round(results.get(i).medianMs() / layer * 1000) / 1000.0);
        }
        results.get(results.size() - 1).with("parts_over_layer", Math.round(sum / layer * 1000) / 1000.0);
        return results;
    }

    private static Trial trial(String name, Runnable body, int tokens) {
        return new Trial() {
            @Override
            public void runOnce() {
                for (int i = 0; i < RUNS_PER_REPETITION; i++) {
                    body.run();
                }
            }

            @Override
            public boolean shortRun() {
                return true;
            }

            @Override
            public BenchResult result(double[] wallMs, double[] cpuMs) {
                return BenchResult.layerPart(name, tokens, SEQUENCES, wallMs);
            }

            @Override
            public void close() {
            }
        };
    }
}

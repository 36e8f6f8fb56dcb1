package io.sparkattention.examples.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sparkattention.examples.common.BadInputException;
import io.sparkattention.gpt.GptConfig;
import io.sparkattention.gpt.GptDecoder;
import io.sparkattention.gpt.GptGeneration;
import io.sparkattention.io.GptModelFiles;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The decoder's memory on long rows ({@code bench --lm --lm-mode lm_memory}): a GPT of 8,192
 * positions (4 layers, 256 wide, 4 heads, 256 ids: a byte-level model, seeded random weights)
 * scores one row of 8,192 ids and generates greedily from a prompt of 8,128 ids to 8,192, in this
 * JVM, each once. The ids are the books' UTF-8 bytes. One layer's materialised attention scores
 * alone would take heads·L²·4 bytes, 1 GiB; the lines state the heap's peak (the heap pools'
 * peaks summed since a collection before the part: an upper bound of the live peak), the JVM's
 * maximum heap and the process's resident peak. Run it with {@code JAVA_OPTS=-Xmx512m}.
 */
final class LmMemoryBenchmark {

    /** The long-row model: 4 layers, 256 wide, 4 heads, 8,192 positions, 256 ids, tied head. */
    static final GptConfig CONFIG = new GptConfig(4, 256, 4, 8192, 256, 4 * 256, 1e-5f, GptConfig.GELU_NEW, true);
    /** New ids generated after the prompt: the prompt is the positions less these. */
    static final int NEW_TOKENS = 64;

    private LmMemoryBenchmark() {
    }

    /**
     * The scoring line, then the generation line.
     *
     * @param row {@code CONFIG.positions()} ids in [0, 256)
     */
    static List<BenchResult> run(int[] row) {
        int positions = CONFIG.positions();
        GptDecoder decoder = new GptDecoder(RandomGpt.weights(CONFIG));
        List<BenchResult> lines = new ArrayList<>();

        start();
        long t0 = System.nanoTime();
        double[] logProbs = decoder.tokenLogProbs(row, positions - 1);
        double sum = 0;
        for (double x : logProbs) {
            sum += x;
        }
        if (logProbs.length != positions - 1 || !Double.isFinite(sum)) {
            throw new IllegalStateException("lm_memory: " + logProbs.length + " log-probabilities, sum " + sum);
        }
        lines.add(line("score", positions, 0, t0).with("scored_tokens", logProbs.length).with("log_prob", sum));

        int[] prompt = Arrays.copyOf(row, positions - NEW_TOKENS);
        start();
        t0 = System.nanoTime();
        int[] generated = decoder.generate(new int[][] {prompt}, new long[] {0}, GptGeneration.greedy(NEW_TOKENS))[0];
        if (generated.length != NEW_TOKENS) {
            throw new IllegalStateException("lm_memory: " + generated.length + " new ids, not " + NEW_TOKENS);
        }
        lines.add(line("generate", prompt.length, NEW_TOKENS, t0));
        return lines;
    }

    /**
     * The model and rows for the command line: {@code dir/model} (config.json + model.safetensors),
     * {@code dir/score.jsonl} (the row) and {@code dir/prompt.jsonl} (its first positions −
     * {@link #NEW_TOKENS} ids), each one line {@code {"input_ids": [...]}}; refuses a {@code dir}
     * that exists, so nothing earlier is overwritten.
     */
    static void write(int[] row, Path dir) {
        if (Files.exists(dir)) {
            throw new BadInputException("--write-model " + dir + " already exists");
        }
        try {
            Files.createDirectories(dir);
            GptModelFiles.write(new GptDecoder(RandomGpt.weights(CONFIG)), dir.resolve("model"));
            ObjectMapper json = new ObjectMapper();
            Files.writeString(dir.resolve("score.jsonl"), json.writeValueAsString(Map.of("input_ids", row)) + "\n");
            int[] prompt = Arrays.copyOf(row, row.length - NEW_TOKENS);
            Files.writeString(dir.resolve("prompt.jsonl"), json.writeValueAsString(Map.of("input_ids", prompt)) + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException("--write-model " + dir + ": " + e.getMessage(), e);
        }
    }

    private static void start() {
        KernelBenchmark.resetPeakHeap();
        ProcessMemory.resetPeak();
    }

    private static BenchResult line(String part, int tokens, int newTokens, long t0) {
        double seconds = (System.nanoTime() - t0) / 1e9;
        long layerScoresMb = (long) CONFIG.heads() * CONFIG.positions() * CONFIG.positions() * Float.BYTES >> 20;
        return BenchResult.timed("lm_memory", 1, new double[] {seconds * 1e3}, 0, io.sparkattention.kernel.Blas.name())
            .with("part", part)
            .with("layers", CONFIG.layers())
            .with("hidden", CONFIG.hidden())
            .with("heads", CONFIG.heads())
            .with("positions", CONFIG.positions())
            .with("tokens", tokens)
            .with("new_tokens", newTokens)
            .with("seconds", Math.round(seconds * 1000) / 1000.0)
            .with("peak_heap_mb", KernelBenchmark.peakHeapMb())
            .with("max_heap_mb", Runtime.getRuntime().maxMemory() >> 20)
            .with("peak_rss_mb", ProcessMemory.peakRssMb())
            .with("one_layer_scores_mb", layerScoresMb);
    }

    /** The first {@code count} UTF-8 bytes of the books (file-name order), as ids in [0, 256). */
    static int[] bytes(Path corpus, int count) {
        int[] ids = new int[count];
        int at = 0;
        try (Stream<Path> files = Files.list(corpus)) {
            for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
                for (byte b : Files.readString(file, StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8)) {
                    if (at == count) {
                        return ids;
                    }
                    ids[at++] = b & 0xff;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("corpus " + corpus + ": " + e.getMessage(), e);
        }
        if (at < count) {
            throw new IllegalArgumentException("corpus " + corpus + " has " + at + " bytes, fewer than " + count);
        }
        return ids;
    }
}

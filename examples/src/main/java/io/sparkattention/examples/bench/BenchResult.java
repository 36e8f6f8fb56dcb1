package io.sparkattention.examples.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sparkattention.kernel.Blas;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * One benchmark configuration's measurements, printed as one JSON line. The fields of the
 * performance issue come first, in its order; each mode may add its own after them.
 */
public final class BenchResult {

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * One part of a layer's time ({@code bench --layer-split}, mode "layer_split"): the part's
     * name, the stacked tokens and sequences it ran on, its median over the timed repetitions.
     */
    public static BenchResult layerPart(String part, int tokens, int sequences, double[] timesMs) {
        double[] sorted = timesMs.clone();
        Arrays.sort(sorted);
        BenchResult r = new BenchResult();
        ObjectNode node = r.node;
        node.put("mode", "layer_split");
        node.put("part", part);
        node.put("tokens", tokens);
        node.put("sequences", sequences);
        node.put("median_ms", round(median(sorted)));
        node.put("min_ms", round(sorted[0]));
        node.put("max_ms", round(sorted[sorted.length - 1]));
        r.machine(timesMs);
        return r;
    }

    /**
     * Shortest median CPU time reported: ten ticks of Linux's process CPU clock (10 ms), below
     * which the rounding to whole ticks exceeds 10% (a 4.7 ms repetition on two threads read 0 or
     * 10 ms).
     */
    static final double MIN_CPU_MS = 100;

    private final ObjectNode node = JSON.createObjectNode();

    /**
     * @param timesMs one wall time per timed repetition
     * @param flops   the work of one repetition (4·L·S·d·BH, causal 2·L·(L+1)·d·BH)
     */
    public BenchResult(String mode, int seqLen, int headDim, int batchHeads, boolean causal, int threads,
                       double[] timesMs, double flops, String blas) {
        double[] sorted = timesMs.clone();
        Arrays.sort(sorted);
        double median = median(sorted);
        node.put("seq_len", seqLen);
        node.put("head_dim", headDim);
        node.put("batch_heads", batchHeads);
        node.put("causal", causal);
        node.put("threads", threads);
        node.put("median_ms", round(median));
        node.put("min_ms", round(sorted[0]));
        node.put("max_ms", round(sorted[sorted.length - 1]));
        node.put("gflops", round(flops / (median * 1e6)));
        node.put("blas", blas);
        node.put("mode", mode);
        machine(timesMs);
    }

    private BenchResult() {
    }

    /**
     * A training run's line ({@code bench --train}, mode "train"): the model's and the step's
     * shape, the cluster's cores, the step times and the tokens trained per second, then the
     * machine fields.
     *
     * @param stepMs one wall time per timed optimiser step
     * @param blas   the BLAS the executors use
     */
    public static BenchResult training(int embedDim, int numHeads, int seqLen, int rowsPerStep, boolean causal,
                                       int threads, double[] stepMs, String blas) {
        double[] sorted = stepMs.clone();
        Arrays.sort(sorted);
        double median = median(sorted);
        BenchResult r = new BenchResult();
        ObjectNode node = r.node;
        node.put("mode", "train");
        node.put("embed_dim", embedDim);
        node.put("num_heads", numHeads);
        node.put("seq_len", seqLen);
        node.put("rows_per_step", rowsPerStep);
        node.put("causal", causal);
        node.put("threads", threads);
        node.put("median_step_ms", round(median));
        node.put("min_step_ms", round(sorted[0]));
        node.put("max_step_ms", round(sorted[sorted.length - 1]));
        if (median > 0) {
            node.put("tokens_per_s", Math.round((double) rowsPerStep * seqLen / (median / 1e3) * 10) / 10.0);
        } else {
            node.putNull("tokens_per_s");  // a step under the clock's millisecond
        }
        node.put("blas", blas);
        r.machine(stepMs);
        return r;
    }

    /**
     * A fine-tuning run's line ({@code bench --fine-tune}): optimiser steps of B texts of T tokens
     * in all (their own tokens, padding not counted), {@code tokens_per_s} being T over the median
     * step, then the machine fields.
     *
     * @param stepMs one wall time per timed optimiser step
     */
    public static BenchResult fineTune(String mode, int rowsPerStep, long tokensPerStep, int threads, double[] stepMs,
                                       String blas) {
        double[] sorted = stepMs.clone();
        Arrays.sort(sorted);
        double median = median(sorted);
        BenchResult r = new BenchResult();
        ObjectNode node = r.node;
        node.put("mode", mode);
        node.put("rows_per_step", rowsPerStep);
        node.put("tokens_per_step", tokensPerStep);
        node.put("threads", threads);
        node.put("median_step_ms", round(median));
        node.put("min_step_ms", round(sorted[0]));
        node.put("max_step_ms", round(sorted[sorted.length - 1]));
        node.put("tokens_per_s", Math.round(tokensPerStep / (median / 1e3) * 10) / 10.0);
        node.put("blas", blas);
        r.machine(stepMs);
        return r;
    }

    /** The median optimiser step of a training or fine-tuning line, in milliseconds. */
    public double medianStepMs() {
        return node.get("median_step_ms").asDouble();
    }

    /**
     * A whole multi-head layer's line ({@code bench --layer}): self-attention over R rows of L×E
     * with H heads. {@code gflops} counts {@link #layerFlops}; {@code tokens_per_s} is R·L over the
     * median time.
     *
     * @param timesMs one wall time per timed repetition (each covers all R rows)
     */
    public static BenchResult layer(String mode, int seqLen, int embedDim, int numHeads, int rows, int threads,
                                    double[] timesMs, String blas) {
        double[] sorted = timesMs.clone();
        Arrays.sort(sorted);
        double median = median(sorted);
        BenchResult r = new BenchResult();
        ObjectNode node = r.node;
        node.put("mode", mode);
        node.put("seq_len", seqLen);
        node.put("embed_dim", embedDim);
        node.put("num_heads", numHeads);
        node.put("head_dim", embedDim / numHeads);
        node.put("rows", rows);
        node.put("causal", false);
        node.put("threads", threads);
        node.put("median_ms", round(median));
        node.put("min_ms", round(sorted[0]));
        node.put("max_ms", round(sorted[sorted.length - 1]));
        node.put("gflops", round(layerFlops(seqLen, embedDim, rows) / (median * 1e6)));
        node.put("tokens_per_s", Math.round((double) rows * seqLen / (median / 1e3) * 10) / 10.0);
        node.put("blas", blas);
        r.machine(timesMs);
        return r;
    }

    /**
     * Work of one self-attention layer over R rows of L×E: the four projections (query, key,
     * value, output), 2·L·E·E each, and the attention over all heads, 4·L²·E.
     */
    public static double layerFlops(int seqLen, int embedDim, int rows) {
        double l = seqLen, e = embedDim;
        return rows * (4 * 2 * l * e * e + 4 * l * l * e);
    }

    /**
     * An encoder's line ({@code bench --encoder}): N texts of T tokens in all through a BERT-family
     * encoder. {@code tokens_per_s} and {@code sentences_per_s} count the texts' own tokens over the
     * median time (a padding runtime's padded positions are work, not throughput); {@code gflops}
     * counts {@link #encoderFlops} over it.
     *
     * @param texts   the texts timed (their lengths give the work)
     * @param timesMs one wall time per timed repetition (each covers all N texts)
     * @param flops   the work of one repetition
     */
    public static BenchResult encoder(String mode, EncoderTexts texts, int threads, double[] timesMs, double flops,
                                      String blas) {
        double[] sorted = timesMs.clone();
        Arrays.sort(sorted);
        double median = median(sorted);
        BenchResult r = new BenchResult();
        ObjectNode node = r.node;
        node.put("mode", mode);
        node.put("lengths", texts.source());
        node.put("texts", texts.count());
        node.put("tokens", texts.tokens());
        node.put("mean_len", round(texts.meanLength()));
        node.put("min_len", texts.minLength());
        node.put("max_len", texts.maxLength());
        node.put("threads", threads);
        node.put("median_ms", round(median));
        node.put("min_ms", round(sorted[0]));
        node.put("max_ms", round(sorted[sorted.length - 1]));
        node.put("tokens_per_s", Math.round(texts.tokens() / (median / 1e3) * 10) / 10.0);
        node.put("sentences_per_s", Math.round(texts.count() / (median / 1e3) * 10) / 10.0);
        node.put("gflops", round(flops / (median * 1e6)));
        node.put("blas", blas);
        r.machine(timesMs);
        return r;
    }

    /**
     * Work of a post-LayerNorm BERT encoder over texts of {@code ids[i].length} tokens, per layer and
     * text of L tokens: the query, key, value and output projections (2·L·E·E each), the two FFN
     * products (2·L·E·I each) and the attention (4·L²·E); embeddings, LayerNorms and GELU are not
     * counted. all-MiniLM-L6-v2 (6 layers, E = 384, I = 1536): about 21 MFLOP per token.
     */
    public static double encoderFlops(int[][] ids, int layers, int hidden, int intermediate) {
        double e = hidden, sum = 0;
        for (int[] text : ids) {
            double l = text.length;
            sum += 8 * l * e * e + 4 * l * e * intermediate + 4 * l * l * e;
        }
        return layers * sum;
    }

    /**
     * A projection's line ({@code bench --gemm}, mode "gemm"): an m×n×k product on T threads, the
     * kernel's name, and GFLOP/s counting 2·m·n·k per product and thread.
     *
     * @param timesMs one wall time per timed repetition of {@code products} products on each thread
     */
    public static BenchResult projection(int m, int n, int k, String kernel, int products, int threads,
                                         double[] timesMs) {
        double[] sorted = timesMs.clone();
        Arrays.sort(sorted);
        double median = median(sorted);
        BenchResult r = new BenchResult();
        ObjectNode node = r.node;
        node.put("mode", "gemm");
        node.put("m", m);
        node.put("n", n);
        node.put("k", k);
        node.put("kernel", kernel);
        node.put("products", products);
        node.put("threads", threads);
        node.put("median_ms", round(median));
        node.put("min_ms", round(sorted[0]));
        node.put("max_ms", round(sorted[sorted.length - 1]));
        node.put("gflops", round(2.0 * m * n * k * products * threads / (median * 1e6)));
        node.put("blas", Blas.name());
        r.machine(timesMs);
        return r;
    }

    /**
     * The line of a mode whose own fields follow it ({@link #with}): mode, threads, the median,
     * least and most wall time of a repetition, GFLOP/s counting {@code flops} per repetition over
     * the median, the BLAS, then the machine fields ({@code bench --lm}'s contenders and the FMA
     * loop beside them).
     *
     * @param timesMs one wall time per timed repetition
     */
    public static BenchResult timed(String mode, int threads, double[] timesMs, double flops, String blas) {
        double[] sorted = timesMs.clone();
        Arrays.sort(sorted);
        double median = median(sorted);
        BenchResult r = new BenchResult();
        ObjectNode node = r.node;
        node.put("mode", mode);
        node.put("threads", threads);
        node.put("median_ms", round(median));
        node.put("min_ms", round(sorted[0]));
        node.put("max_ms", round(sorted[sorted.length - 1]));
        node.put("gflops", round(flops / (median * 1e6)));
        node.put("blas", blas);
        r.machine(timesMs);
        return r;
    }

    /** The repetitions, their times and the machine's fields. */
    private void machine(double[] timesMs) {
        node.put("repeat", timesMs.length);
        node.putPOJO("times_ms", Arrays.stream(timesMs).map(BenchResult::round).toArray());
        node.put("gc", collectors());
        // The OpenBLAS kernels asked for (the products' speed depends on them); null without a
        // native BLAS, where nothing reads the variable.
        node.put("openblas_coretype", Blas.isNative() ? Blas.coreType() : null);
    }

    /**
     * This JVM's garbage collectors, e.g. "PS MarkSweep+PS Scavenge" (the launcher's default) or
     * "G1 Young Generation+G1 Old Generation": the Spark stage's throughput in local mode depends on
     * them, since G1 starts a concurrent cycle for every multi-MiB row array. With a cluster master
     * the executors run their own JVMs.
     */
    static String collectors() {
        return ManagementFactory.getGarbageCollectorMXBeans().stream()
            .map(GarbageCollectorMXBean::getName)
            .collect(Collectors.joining("+"));
    }

    /**
     * Adds {@code median_cpu_ms} (process CPU time per repetition, all threads) and
     * {@code gflops_cpu} (work over that CPU time: GFLOP/s per busy core). Unlike wall time, CPU
     * time does not count the waits for a core on a shared machine; ONNX Runtime's spinning
     * worker threads do count. Both are null when the median is below {@link #MIN_CPU_MS}.
     */
    public BenchResult withCpuTimes(double[] cpuMs, double flops) {
        double[] sorted = cpuMs.clone();
        Arrays.sort(sorted);
        double median = median(sorted);
        if (!(median >= MIN_CPU_MS)) {
            node.putNull("median_cpu_ms");
            node.putNull("gflops_cpu");
            return this;
        }
        node.put("median_cpu_ms", round(median));
        node.put("gflops_cpu", round(flops / (median * 1e6)));
        return this;
    }

    /** Adds a mode-specific field. */
    public BenchResult with(String field, Object value) {
        node.putPOJO(field, value);
        return this;
    }

    /** Adds every field of {@code fields}, in its order (a peer's settings). */
    public BenchResult withAll(java.util.Map<String, ?> fields) {
        fields.forEach(this::with);
        return this;
    }

    /** The median of the timed repetitions, in milliseconds. */
    public double medianMs() {
        return node.get("median_ms").asDouble();
    }

    /** The work over the median time, in GFLOP/s. */
    public double gflops() {
        return node.get("gflops").asDouble();
    }

    /** The JSON line. */
    public String toJson() {
        try {
            return JSON.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Work of one attention pass over BH (row, head) pairs of length n, as the issue counts it. */
    public static double flops(int seqLen, int headDim, int batchHeads, boolean causal) {
        double n = seqLen;
        return causal ? 2.0 * n * (n + 1) * headDim * batchHeads : 4.0 * n * n * headDim * batchHeads;
    }

    static double median(double[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static double round(double x) {
        return Math.round(x * 1000.0) / 1000.0;
    }
}

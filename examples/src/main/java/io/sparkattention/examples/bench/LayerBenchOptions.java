package io.sparkattention.examples.bench;

import io.sparkattention.examples.common.BadInputException;
import io.sparkattention.examples.common.SparkSessions;
import io.sparkattention.exec.Strategy;
import io.sparkattention.nn.MultiHeadAttentionWeights;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParseResult;

import java.util.List;
import java.util.Locale;

/**
 * The whole-layer mode of {@code spark-attention bench} ({@code --layer}): a self-attention
 * {@code nn.MultiheadAttention(E, H)} layer with seeded random weights on R rows of L×E, in this
 * JVM beside the attention kernel ({@link LayerBenchmark}) or, with {@code --spark}, through the
 * {@code MultiHeadAttentionModel} stage ({@link SparkLayerBenchmark}). A mixin of
 * {@link BenchCommand}, sharing its {@code --seq-len}, {@code --threads}, {@code --repeat},
 * {@code --peer}, the Spark options and the training mode's {@code --embed-dim} and {@code --num-heads}.
 */
final class LayerBenchOptions {

    /** Options of the other modes, which mean nothing to a layer run. */
    private static final List<String> OTHER_OPTIONS = List.of("--head-dim", "--batch-heads", "--causal",
        "--backward", "--train", "--rows-per-step", "--tile-ops", "--block-q", "--block-k", "--compare-causal");

    @Option(names = "--layer", description = {"Time a whole multi-head self-attention layer (nn.MultiheadAttention"
        + "(E, H), batch_first, eval) with seeded random weights and biases, on --rows rows of --seq-len × --embed-dim "
        + "with --num-heads heads: in this JVM, the raw layer (MultiHeadAttentionLayer.forward on each row, the rows "
        + "shared by --threads threads; mode \"layer\") round-robin with the attention kernel on 16 heads of 1024×64 "
        + "(mode \"kernel\"); the layer's line gets gflops_vs_kernel. With --spark, the MultiHeadAttentionModel stage "
        + "on the rows generated on the executors (mode \"spark_layer\", the --spark machinery: --rows, --partitions, "
        + "--cache-input, --strategy, --master), and with the lab's (--compare-kernel) the raw layer on the same rows on "
        + "the local master's cores (throughput_vs_raw_layer on the stage's line: the raw layer's median time over the "
        + "stage's). "
        + "With --peer ort, ONNX Runtime's whole layer as one graph on the same rows and weights (mode \"ort_layer\"; "
        + "throughput_vs_ort_layer on the first line). gflops counts the four projections, 2·L·E·E each, and the "
        + "attention, 4·L·L·E, per row; tokens_per_s is R·L over the median time. "
        + "E.g. --layer --spark --seq-len 128 --embed-dim 768 --num-heads 12 --rows 512 --cache-input."})
    boolean layer;

    /** Runs {@code bench}'s lengths through the layer; one JSON line per contender and length. */
    int run(BenchCommand bench, ParseResult parsed) {
        for (String option : OTHER_OPTIONS) {
            if (parsed.hasMatchedOption(option)) {
                throw new BadInputException(option + " is not an option of --layer (it takes --embed-dim and "
                    + "--num-heads)");
            }
        }
        TrainBenchOptions shape = bench.trainOptions;
        int e = required("--embed-dim", shape.embedDim), h = required("--num-heads", shape.numHeads);
        if (e % h != 0) {
            throw new BadInputException("--num-heads (" + h + ") must divide --embed-dim (" + e + ")");
        }
        for (int n : bench.seqLens) {
            positive("--seq-len", n);
        }
        positive("--repeat", bench.repeat);
        SparkBenchOptions sparkOptions = bench.sparkOptions;
        positive("--rows", sparkOptions.rows);
        boolean ort = ortPeer(bench.peers);
        if (ort && OrtLayer.unsupported(h) != null) {
            throw new BadInputException(OrtLayer.unsupported(h));
        }
        MultiHeadAttentionWeights weights = RandomLayer.weights(e, h);
        if (sparkOptions.spark) {
            return runSpark(bench, parsed, weights, ort);
        }
        if (sparkOptions.partitions != null || sparkOptions.cacheInput || !"auto".equals(sparkOptions.strategy)
            || sparkOptions.compareKernel || sparkOptions.master != null || sparkOptions.flat) {
            throw new BadInputException("--partitions, --cache-input, --master, --strategy, --compare-kernel and "
                + "--flat need --spark");
        }
        positive("--threads", bench.threads);
        LayerBenchmark runner = new LayerBenchmark(weights, sparkOptions.rows, bench.threads, bench.repeat, ort);
        runner.warmUp();
        for (int n : bench.seqLens) {
            print(runner.run(n));
        }
        return 0;
    }

    private static int runSpark(BenchCommand bench, ParseResult parsed, MultiHeadAttentionWeights weights, boolean ort) {
        SparkBenchOptions options = bench.sparkOptions;
        if (parsed.hasMatchedOption("--threads")) {
            throw new BadInputException("--threads is not an option of --spark (it runs on the cluster's cores: "
                + "--master 'local[N]')");
        }
        int parts = options.partitions == null ? options.rows : options.partitions;
        positive("--partitions", parts);
        if (parts > options.rows) {
            throw new BadInputException("--partitions must be <= --rows (" + options.rows + "), got " + parts);
        }
        Strategy chosen;
        try {
            chosen = Strategy.parse(options.strategy);
        } catch (IllegalArgumentException e) {
            throw new BadInputException("--strategy: " + e.getMessage(), e);
        }
        String master = SparkSessions.masterFor(options.master);
        if ((options.compareKernel || ort) && !master.startsWith("local")) {
            throw new BadInputException((options.compareKernel ? "--compare-kernel" : "--peer ort")
                + " needs a local master (it runs in this JVM), got " + master);
        }
        SparkBenchOptions.pollExecutorMetrics();
        SparkSession session = SparkSessions.start("spark-attention bench --layer", options.master);
        SparkLayerBenchmark runner = new SparkLayerBenchmark(session, chosen, options.rows, parts, options.cacheInput,
            bench.repeat, weights, options.flat);
        for (int n : bench.seqLens) {
            print(runner.run(n, options.compareKernel, ort));
        }
        return 0;
    }

    /** Whether {@code --peer} asks for ONNX Runtime, the one peer of a layer run. */
    private static boolean ortPeer(List<String> peers) {
        boolean ort = false;
        for (String peer : peers) {
            if (!"ort".equals(peer.trim().toLowerCase(Locale.ROOT))) {
                throw new BadInputException("--peer: unknown peer \"" + peer + "\" for --layer, expected ort");
            }
            ort = true;
        }
        return ort;
    }

    private static void print(List<BenchResult> results) {
        for (BenchResult result : results) {
            System.out.println(result.toJson());
        }
        System.out.flush();
    }

    private static int required(String option, Integer value) {
        if (value == null) {
            throw new BadInputException("--layer needs " + option);
        }
        positive(option, value);
        return value;
    }

    private static void positive(String option, int value) {
        if (value < 1) {
            throw new BadInputException(option + " must be >= 1, got " + value);
        }
    }
}

package io.sparkattention.examples.bench;

import io.sparkattention.examples.common.BadInputException;
import io.sparkattention.examples.common.SparkSessions;
import io.sparkattention.exec.Strategy;
import io.sparkattention.kernel.AttentionSpec;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Option;

/**
 * The Spark mode of {@code spark-attention bench} ({@code --spark}): the kernel benchmark's
 * problem through the {@code ScaledDotProductAttention} stage on a SparkSession, see
 * {@link SparkBenchmark}. A mixin of {@link BenchCommand}, which keeps its kernel mode as it is.
 */
final class SparkBenchOptions {

    @Option(names = "--spark", description = {"Run through Spark: the ScaledDotProductAttention stage with numHeads = "
        + "BH on rows (--rows) of n×(BH·d) query, key and value generated on the executors; the output is checksummed "
        + "there (nothing is collected). Each repetition is one job, generating the inputs unless --cache-input; with "
        + "the batch strategy the stage is planned once per length and every job runs that plan, as in a batch job "
        + "over a large table (the shuffling strategies are planned per repetition). Untimed repetitions run first "
        + "until five in a row are within 1.25x of the fastest (at most 20 or 60 s). Adds mode, strategy, "
        + "resolved_strategy, rows, partitions, cached_input, executors, executor_memory, executor_peak_heap_mb "
        + "(with --cache-input it includes the cached rows), warmup_ms (the untimed repetitions), warmup_settled, "
        + "warmup_jit_ms (the JIT compilers' time during each untimed repetition) and jit_ms (over the timed "
        + "repetitions, every contender's: this JVM's compilers) to the JSON, and like the kernel mode peak_heap_mb, "
        + "peak_rss_mb and contenders; threads is the cluster's cores."})
    boolean spark;

    @Option(names = "--strategy", defaultValue = "auto", paramLabel = "S",
        description = "With --spark: auto, batch, head or sequence (default ${DEFAULT-VALUE}).")
    String strategy;

    @Option(names = "--rows", defaultValue = "1", paramLabel = "R",
        description = {"With --spark: rows (sequences) of n×(BH·d) each, so R·BH heads in all "
            + "(default ${DEFAULT-VALUE}). Compare with the kernel mode's --batch-heads R·BH. With --layer: rows of "
            + "n×E, with or without --spark."})
    int rows;

    @Option(names = "--partitions", paramLabel = "P",
        description = {"With --spark: partitions the rows are spread over (default: one row per partition). "
            + "Each task pays Spark's fixed costs once, whatever its rows. With --train: partitions each step's "
            + "--rows-per-step rows are spread over (default: as many as the cluster's cores, at most B); the same with "
            + "--fine-tune."})
    Integer partitions;

    @Option(names = "--cache-input", description = {"With --spark: generate the rows once per length, cache them "
        + "in executor memory and time only the stage and the checksum (without it, every repetition generates them)."})
    boolean cacheInput;

    @Option(names = "--flat", description = {"With --spark: store the generated query, key and value as flat "
        + "array<float> columns of n·W values (SequenceLayout) instead of array<array<float>>; the output is flat "
        + "too. Adds flat_input to the JSON."})
    boolean flat;

    @Option(names = "--master", paramLabel = "URL",
        description = "With --spark, --train or --fine-tune: the Spark master (default local[*], --fine-tune local[2]; "
            + "e.g. spark://127.0.0.1:7077).")
    String master;

    @Option(names = "--compare-kernel", hidden = true, description = {"With --spark and a local master: also time the raw kernel "
        + "on the same R·BH heads in this JVM, on as many threads as Spark's default parallelism (a local master's "
        + "cores), round-robin with the stage's repetitions (a kernel line follows each stage line). The stage's line "
        + "gets throughput_vs_kernel: the kernel's median time over the stage's. With --layer, the raw layer instead "
        + "(throughput_vs_raw_layer)."})
    boolean compareKernel;

    /** Runs {@code bench}'s lengths, head dimension and heads through Spark; one JSON line each. */
    int run(BenchCommand bench) {
        for (int n : bench.seqLens) {
            positive("--seq-len", n);
        }
        positive("--head-dim", bench.headDim);
        positive("--batch-heads", bench.batchHeads);
        positive("--repeat", bench.repeat);
        positive("--rows", rows);
        int parts = partitions == null ? rows : partitions;
        positive("--partitions", parts);
        if (parts > rows) {
            throw new BadInputException("--partitions must be <= --rows (" + rows + "), got " + parts);
        }
        Strategy chosen;
        try {
            chosen = Strategy.parse(strategy);
        } catch (IllegalArgumentException e) {
            throw new BadInputException("--strategy: " + e.getMessage(), e);
        }
        if (!bench.peers.isEmpty()) {
            throw new BadInputException("--peer runs beside the kernel, not with --spark (use --compare-kernel)");
        }
        if (bench.blockQ != null && bench.blockK != null && !bench.blockQ.equals(bench.blockK)) {
            throw new BadInputException("--block-q and --block-k must be equal with --spark (the stage's blockSize)");
        }
        pollExecutorMetrics();
        String effectiveMaster = SparkSessions.masterFor(master);
        if (compareKernel && !effectiveMaster.startsWith("local")) {
            throw new BadInputException("--compare-kernel needs a local master (the kernel runs in this JVM), got "
                + effectiveMaster);
        }
        SparkSession session = SparkSessions.start("spark-attention bench", master);
        Integer block = bench.blockQ != null ? bench.blockQ : bench.blockK;
        SparkBenchmark runner = new SparkBenchmark(session, chosen, rows, parts, cacheInput, bench.causal, bench.repeat,
            block, flat);
        runner.warmUp(bench.headDim, bench.batchHeads);
        KernelBenchmark kernel = null;
        if (compareKernel) {
            AttentionSpec spec = AttentionSpec.defaults().withCausal(bench.causal);
            if (block != null) {
                spec = spec.withBlocks(block, block);
            }
            kernel = new KernelBenchmark(spec, session.sparkContext().defaultParallelism(), bench.repeat);
            kernel.warmUp(bench.headDim, bench.batchHeads);
        }
        for (int n : bench.seqLens) {
            for (BenchResult result : runner.run(n, bench.headDim, bench.batchHeads, kernel)) {
                System.out.println(result.toJson());
            }
            System.out.flush();
        }
        return 0;
    }

    /** Samples the executors' heap peaks every 100 ms (Spark's default samples only at heartbeats). */
    static void pollExecutorMetrics() {
        if (System.getProperty("spark.executor.metrics.pollingInterval") == null) {
            System.setProperty("spark.executor.metrics.pollingInterval", "100ms");
        }
    }

    /** Whether an option of the stage's runs other than {@code --master} was given. */
    boolean stageOptionsGiven() {
        return partitions != null || stageOnlyOptionsGiven();
    }

    /** Whether an option of the stage's runs that {@code --train} does not share was given. */
    boolean stageOnlyOptionsGiven() {
        return rows != 1 || cacheInput || !"auto".equals(strategy) || compareKernel || flat;
    }

    /** The Spark-only options, given without {@code --spark}, would be silently ignored: refused. */
    void rejectWithoutSpark() {
        if (stageOptionsGiven() || master != null) {
            throw new BadInputException(
                "--rows, --partitions, --cache-input, --master, --strategy, --compare-kernel and --flat need --spark");
        }
    }

    private static void positive(String option, int value) {
        if (value < 1) {
            throw new BadInputException(option + " must be >= 1, got " + value);
        }
    }
}

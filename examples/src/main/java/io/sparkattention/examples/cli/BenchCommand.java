package io.sparkattention.examples.cli;

import io.sparkattention.examples.bench.BenchResult;
import io.sparkattention.examples.bench.KernelBenchmark;
import io.sparkattention.examples.bench.SparkBenchmark;
import io.sparkattention.exec.Strategy;
import io.sparkattention.kernel.AttentionSpec;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.List;
import java.util.concurrent.Callable;

/** {@code spark-attention bench}: times attention on random data, one JSON line per configuration. */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = {"Times the attention kernel on random data after a warm-up and prints one JSON line per "
        + "configuration: seq_len, head_dim, batch_heads, causal, threads, median_ms, min_ms, max_ms, gflops, blas.",
        "gflops counts 4·L·S·d·BH (causal: 2·L·(L+1)·d·BH) over the median time.",
        "With --spark: the same problem through Spark (see the option), with mode, strategy, resolved_strategy, "
            + "executors, executor_memory and executor_peak_heap_mb added."})
final class BenchCommand implements Callable<Integer> {

    @Option(names = "--seq-len", split = ",", required = true, paramLabel = "N",
        description = "Sequence lengths (L = S), comma-separated.")
    List<Integer> seqLens;

    @Option(names = "--head-dim", defaultValue = "64", paramLabel = "D", description = "Head dimension (default ${DEFAULT-VALUE}).")
    int headDim;

    @Option(names = "--batch-heads", defaultValue = "1", paramLabel = "BH",
        description = "Independent (row, head) problems per pass (default ${DEFAULT-VALUE}).")
    int batchHeads;

    @Option(names = "--causal", description = "Causal (top-left) mask; masked tiles are skipped.")
    boolean causal;

    @Option(names = "--threads", defaultValue = "1", paramLabel = "T", description = "Kernel threads (default ${DEFAULT-VALUE}).")
    int threads;

    @Option(names = "--repeat", defaultValue = "5", paramLabel = "R", description = "Timed repetitions (default ${DEFAULT-VALUE}).")
    int repeat;

    @Option(names = "--block-q", paramLabel = "BQ", description = "Query rows per tile (default: the kernel's).")
    Integer blockQ;

    @Option(names = "--block-k", paramLabel = "BK", description = "Keys per tile (default: the kernel's).")
    Integer blockK;

    @Option(names = "--spark", description = "Run through Spark: the ScaledDotProductAttention stage with numHeads = BH "
        + "on one row of n×(BH·d) query, key and value, generated on the executors; the output is checksummed there "
        + "(nothing is collected). Times include planning and generating the inputs.")
    boolean spark;

    @Option(names = "--strategy", defaultValue = "auto", paramLabel = "S",
        description = "With --spark: auto, batch, head or sequence (default ${DEFAULT-VALUE}).")
    String strategy;

    @Option(names = "--master", paramLabel = "URL",
        description = "With --spark: the Spark master (default local[*]; e.g. spark://127.0.0.1:7077).")
    String master;

    @Override
    public Integer call() {
        for (int n : seqLens) {
            positive("--seq-len", n);
        }
        positive("--head-dim", headDim);
        positive("--batch-heads", batchHeads);
        positive("--threads", threads);
        positive("--repeat", repeat);
        if (spark) {
            return runSpark();
        }
        AttentionSpec spec = AttentionSpec.defaults().withCausal(causal);
        spec = spec.withBlocks(blockQ == null ? spec.queryBlock() : blockQ, blockK == null ? spec.keyBlock() : blockK);
        KernelBenchmark bench = new KernelBenchmark(spec, threads, repeat);
        bench.warmUp(headDim, batchHeads);
        for (int n : seqLens) {
            BenchResult result = bench.run(n, headDim, batchHeads);
            System.out.println(result.toJson());
            System.out.flush();
        }
        return 0;
    }

    /** {@code --spark}: the workload through the stage, on {@code --master}. */
    private int runSpark() {
        Strategy chosen;
        try {
            chosen = Strategy.parse(strategy);
        } catch (IllegalArgumentException e) {
            throw new BadInputException("--strategy: " + e.getMessage(), e);
        }
        if (blockQ != null && blockK != null && !blockQ.equals(blockK)) {
            throw new BadInputException("--block-q and --block-k must be equal with --spark (the stage's blockSize)");
        }
        // Executor heap peaks are sampled this often (Spark's default samples only at heartbeats).
        if (System.getProperty("spark.executor.metrics.pollingInterval") == null) {
            System.setProperty("spark.executor.metrics.pollingInterval", "100ms");
        }
        SparkSession session = SparkSessions.start("spark-attention bench", master);
        SparkBenchmark bench = new SparkBenchmark(session, chosen, causal, repeat, blockQ != null ? blockQ : blockK);
        bench.warmUp(headDim, batchHeads);
        for (int n : seqLens) {
            System.out.println(bench.run(n, headDim, batchHeads).toJson());
            System.out.flush();
        }
        return 0;
    }

    private static void positive(String option, int value) {
        if (value < 1) {
            throw new BadInputException(option + " must be >= 1, got " + value);
        }
    }
}

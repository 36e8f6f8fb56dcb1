package io.sparkattention.examples.cli;

import io.sparkattention.examples.bench.BenchResult;
import io.sparkattention.examples.bench.KernelBenchmark;
import io.sparkattention.kernel.AttentionSpec;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.List;
import java.util.concurrent.Callable;

/** {@code spark-attention bench}: times attention on random data, one JSON line per configuration. */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = {"Times the attention kernel on random data after a warm-up and prints one JSON line per "
        + "configuration: seq_len, head_dim, batch_heads, causal, threads, median_ms, min_ms, max_ms, gflops, blas.",
        "gflops counts 4·L·S·d·BH (causal: 2·L·(L+1)·d·BH) over the median time."})
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

    /** {@code --spark}, {@code --strategy}, {@code --master}: the same problem through Spark. */
    @picocli.CommandLine.Mixin
    SparkBenchOptions sparkOptions = new SparkBenchOptions();

    @Option(names = "--block-q", paramLabel = "BQ", description = "Query rows per tile (default: the kernel's).")
    Integer blockQ;

    @Option(names = "--block-k", paramLabel = "BK", description = "Keys per tile (default: the kernel's).")
    Integer blockK;

    @Override
    public Integer call() {
        if (sparkOptions.spark) {
            return sparkOptions.run(this);
        }
        for (int n : seqLens) {
            positive("--seq-len", n);
        }
        positive("--head-dim", headDim);
        positive("--batch-heads", batchHeads);
        positive("--threads", threads);
        positive("--repeat", repeat);
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

    private static void positive(String option, int value) {
        if (value < 1) {
            throw new BadInputException(option + " must be >= 1, got " + value);
        }
    }
}

package io.sparkattention.examples.bench;

import io.sparkattention.examples.common.BadInputException;
import io.sparkattention.examples.common.SparkSessions;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParseResult;

import java.util.List;

/**
 * The training mode of {@code spark-attention bench} ({@code --train}): fits the attention
 * classifier through Spark and times its steps, see {@link TrainBenchmark}. A mixin of
 * {@link BenchCommand}, sharing its {@code --seq-len}, {@code --causal}, {@code --repeat},
 * {@code --master} and {@code --partitions}.
 */
final class TrainBenchOptions {

    /** The kernel mode's options, which mean nothing to a training run. */
    private static final List<String> KERNEL_OPTIONS = List.of("--head-dim", "--batch-heads", "--threads",
        "--backward", "--tile-ops", "--block-q", "--block-k", "--compare-causal");

    @Option(names = "--train", description = {"Time training through Spark: AttentionClassifier (self-attention with "
        + "residual, mean pooling and a linear head over 4 classes) fitted with Adam on --rows-per-step random rows of "
        + "--seq-len tokens of width --embed-dim, generated on the executors and cached by the fit, every row in every "
        + "step (miniBatchFraction = 1). An untimed fit of 10 steps on a few rows of the first length warms the JVM up; the "
        + "timed fit runs 3 untimed steps, then --repeat timed ones. A step is one Spark "
        + "job; its time is the interval between its job's submission and the next step's (the last step's: the fit's "
        + "final loss job), as Spark's scheduler stamps them: the weights' broadcast, the job over the cached rows and "
        + "the driver's Adam update. --partitions P spreads the rows over P partitions. Prints mode \"train\", embed_dim, num_heads, seq_len, rows_per_step, threads (the "
        + "cluster's cores), median_step_ms, min_step_ms, max_step_ms, tokens_per_s (rows_per_step·seq_len over the "
        + "median step), warmup_step_ms, loss_first, loss_last, blas, tile_ops, gc and openblas_coretype. "
        + "examples/peers/torch_train.py prints the same fields for PyTorch 1.13. With --peer torch, PyTorch 2.7.1 "
        + "(DJL) trains the same classifier from the fit's initial weights on the same rows with the same loss and Adam, "
        + "its step taken between ours in the fit's listener (taken out of our step's time): mode \"torch_train\" "
        + "with its step times, losses and thread settings, and on ours throughput_vs_torch, loss_first_vs_torch, "
        + "loss_last_vs_torch."})
    boolean train;

    @Option(names = "--embed-dim", paramLabel = "E", description = "With --train or --layer: the embedding width E.")
    Integer embedDim;

    @Option(names = "--num-heads", paramLabel = "H", description = "With --train or --layer: attention heads (dividing E).")
    Integer numHeads;

    @Option(names = "--rows-per-step", paramLabel = "B",
        description = "With --train or --fine-tune: rows in every step (--fine-tune: default 32).")
    Integer rowsPerStep;

    /** Runs {@code bench}'s lengths as training runs; one JSON line each. */
    int run(BenchCommand bench, ParseResult parsed) {
        if (bench.sparkOptions.spark) {
            throw new BadInputException("--train and --spark are separate modes: give one of them");
        }
        if (bench.sparkOptions.stageOnlyOptionsGiven()) {
            throw new BadInputException("--rows, --cache-input, --strategy, --compare-kernel and --flat need --spark, "
                + "not --train");
        }
        for (String option : KERNEL_OPTIONS) {
            if (parsed.hasMatchedOption(option)) {
                throw new BadInputException(option + " is not an option of --train (it runs on the cluster's cores: "
                    + "--master 'local[N]')");
            }
        }
        int e = required("--embed-dim", embedDim), h = required("--num-heads", numHeads);
        int b = required("--rows-per-step", rowsPerStep);
        Integer partitions = bench.sparkOptions.partitions;
        if (partitions != null) {
            positive("--partitions", partitions);
            if (partitions > b) {
                throw new BadInputException("--partitions must be <= --rows-per-step (" + b + "), got " + partitions);
            }
        }
        if (e % h != 0) {
            throw new BadInputException("--num-heads (" + h + ") must divide --embed-dim (" + e + ")");
        }
        for (int n : bench.seqLens) {
            positive("--seq-len", n);
        }
        positive("--repeat", bench.repeat);
        boolean withTorch = torchPeer(bench.peers);
        SparkBenchOptions.pollExecutorMetrics();
        SparkSession session = SparkSessions.start("spark-attention bench --train", bench.sparkOptions.master);
        // PyTorch runs while Spark waits: as many intra-op threads as the cluster has cores
        TorchRuntime torch = withTorch ? TorchPeers.runtime(session.sparkContext().defaultParallelism()) : null;
        TrainBenchmark runner = new TrainBenchmark(session, e, h, b, bench.causal, bench.repeat).against(torch);
        if (partitions != null) {
            runner.spreadOver(partitions);
        }
        for (int n : bench.seqLens) {
            for (BenchResult line : runner.run(n)) {
                System.out.println(line.toJson());
            }
            System.out.flush();
        }
        return 0;
    }

    /** Whether {@code --peer torch} was given; any other peer is refused. */
    private static boolean torchPeer(List<String> peers) {
        for (String peer : peers) {
            if (!peer.trim().equalsIgnoreCase("torch")) {
                throw new BadInputException("--peer: unknown peer \"" + peer + "\" for --train, expected torch");
            }
        }
        return !peers.isEmpty();
    }

    /** The training options, given without {@code --train}, would be silently ignored: refused. */
    void rejectWithoutTrain() {
        if (rowsPerStep != null) {
            throw new BadInputException("--rows-per-step needs --train");
        }
        if (embedDim != null || numHeads != null) {
            throw new BadInputException("--embed-dim and --num-heads need --train or --layer");
        }
    }

    private static int required(String option, Integer value) {
        if (value == null) {
            throw new BadInputException("--train needs " + option);
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

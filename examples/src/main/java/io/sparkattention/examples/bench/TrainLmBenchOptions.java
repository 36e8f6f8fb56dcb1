package io.sparkattention.examples.bench;

import io.sparkattention.examples.common.BadInputException;
import io.sparkattention.examples.common.SparkSessions;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParseResult;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

/**
 * The language-model training mode of {@code spark-attention bench} ({@code --train-lm}), a mixin of
 * {@link BenchCommand} sharing its {@code --threads}, {@code --repeat}, {@code --peer},
 * {@code --peer-only} and {@code --corpus}: {@link TrainLmBenchmark}.
 */
final class TrainLmBenchOptions {

    /** Options of the other modes, which mean nothing to a train-lm run. */
    private static final List<String> OTHER_OPTIONS = List.of("--seq-len", "--head-dim", "--batch-heads", "--causal",
        "--backward", "--train", "--rows-per-step", "--tile-ops", "--block-q", "--block-k", "--compare-causal",
        "--layer", "--embed-dim", "--num-heads", "--rows", "--strategy", "--cache-input", "--flat", "--gemm",
        "--gemm-products", "--texts", "--spark", "--partitions", "--master", "--compare-kernel");

    @Option(names = "--train-lm", description = {"Time training a GPT-2-style causal language model (pre-LN blocks, "
        + "gelu_new, tied head; seeded random weights as GPT-2 initialises them) on the same blocks of the Austen "
        + "corpus in every step: 6 layers, 384 wide, 6 heads, block 256, the 256 byte ids, 16 blocks a step (or "
        + "--train-lm-gpt2). Ours: the library's Estimator (GptLanguageModeler continuing from those weights, one block "
        + "a row, every block every step) on Spark's local[--threads] master (AdamW at 6e-4 with weight decay 0.1 on "
        + "the 2-D tensors, Hugging Face's linear schedule, gradient norm clipped at 1, dropout 0; mode \"train_lm\"; "
        + "a step: the driver's update, the broadcast and the step's job). With --peer torch, PyTorch 2.7.1 "
        + "(libtorch through DJL, --threads intra-op threads; mode \"torch_train_lm\") takes the same steps on the "
        + "same weights and blocks, one between each two of ours from the fit's listener while Spark is idle, and "
        + "our line gets throughput_vs_torch. 2 untimed steps "
        + "each, then --repeat timed ones. Lines: tokens_per_s (a step's ids over the median step), median_step_ms, "
        + "gflops, loss_first, loss_last."})
    boolean trainLm;

    @Option(names = "--train-lm-gpt2", description = "With --train-lm: GPT-2 small's shape instead (12 layers, 768 "
        + "wide, 12 heads, the 50,257 ids of GPT-2's tokenizer), 8 blocks of 512 a step.")
    boolean gpt2;

    /** Whether an option of this mode was given without {@code --train-lm}. */
    void rejectWithoutTrainLm(ParseResult parsed) {
        if (parsed.hasMatchedOption("--train-lm-gpt2")) {
            throw new BadInputException("--train-lm-gpt2 needs --train-lm");
        }
    }

    /** Runs the benchmark; one JSON line per contender. */
    int run(BenchCommand bench, ParseResult parsed) {
        for (String option : OTHER_OPTIONS) {
            if (parsed.hasMatchedOption(option)) {
                throw new BadInputException(option + " is not an option of --train-lm");
            }
        }
        if (bench.threads < 1) {
            throw new BadInputException("--threads must be >= 1, got " + bench.threads);
        }
        if (bench.repeat < 1) {
            throw new BadInputException("--repeat must be >= 1, got " + bench.repeat);
        }
        boolean torch = false;
        for (String peer : bench.peers) {
            if (!"torch".equalsIgnoreCase(peer.trim())) {
                throw new BadInputException("--peer: unknown peer \"" + peer + "\" for --train-lm, expected torch");
            }
            torch = true;
        }
        String corpus = bench.encoderOptions.corpus;
        Path dir = corpus != null ? Paths.get(corpus)
            : Paths.get(System.getProperty("spark.attention.home", "."), "examples", "data", "austen");
        if (!Files.isDirectory(dir)) {
            throw new BadInputException((corpus == null ? "bundled corpus " : "--corpus ") + dir
                + ": no such directory");
        }
        TrainLmBenchmark.Shape shape = gpt2 ? TrainLmBenchmark.Shape.gpt2() : TrainLmBenchmark.Shape.bytes();
        int[][] blocks;
        try {
            blocks = TrainLmBlocks.of(shape, dir);
        } catch (IllegalArgumentException e) {
            throw new BadInputException("--corpus: " + e.getMessage(), e);
        }
        if (torch) {
            TorchPeers.checkBuilt();
        }
        // PyTorch first: its BLAS calls bind to its own MKL before anything loads the system's BLAS
        TorchRuntime runtime = torch ? TorchPeers.runtime(bench.threads) : null;
        SparkSession spark = bench.peerOnly ? null
            : SparkSessions.start("spark-attention bench --train-lm", "local[" + bench.threads + "]");
        for (BenchResult line : TrainLmBenchmark.run(spark, shape, blocks, runtime, bench.threads, bench.repeat)) {
            System.out.println(line.toJson());
        }
        System.out.flush();
        return 0;
    }
}

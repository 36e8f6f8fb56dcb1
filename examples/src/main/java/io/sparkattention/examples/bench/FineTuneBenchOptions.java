package io.sparkattention.examples.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sparkattention.bert.BertEncoder;
import io.sparkattention.examples.common.BadInputException;
import io.sparkattention.examples.common.OutputFile;
import io.sparkattention.examples.common.SparkSessions;
import io.sparkattention.io.BundledModels;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParseResult;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;

/**
 * The fine-tuning mode of {@code spark-attention bench} ({@code --fine-tune}), see
 * {@link FineTuneBenchmark}. A mixin of {@link BenchCommand}, sharing its {@code --threads},
 * {@code --repeat}, {@code --peer}, {@code --master}, {@code --partitions}, {@code --corpus} and
 * {@code --rows-per-step}.
 */
final class FineTuneBenchOptions {

    /** Texts per step unless {@code --rows-per-step} says otherwise. */
    static final int DEFAULT_ROWS_PER_STEP = 32;
    /** The master unless {@code --master} says otherwise: the 2-core machine's cores. */
    static final String DEFAULT_MASTER = "local[2]";

    /** Options of the other modes, which mean nothing to a fine-tuning run. */
    private static final List<String> OTHER_OPTIONS = List.of("--seq-len", "--head-dim", "--batch-heads", "--causal",
        "--backward", "--train", "--tile-ops", "--block-q", "--block-k", "--compare-causal", "--layer", "--embed-dim",
        "--num-heads", "--rows", "--strategy", "--cache-input", "--flat", "--gemm", "--gemm-products", "--spark",
        "--compare-kernel", "--texts");

    @Option(names = "--fine-tune", description = {"Time fine-tuning through Spark: BertClassifier fitting "
        + "all-MiniLM-L6-v2 with every layer trainable and a linear head over the books (mean pooling, AdamW at 5e-5 "
        + "with weight decay 0.01, dropout 0.1, gradient norm clipped at 1) on --rows-per-step (default "
        + DEFAULT_ROWS_PER_STEP + ") Austen passages evenly spaced through --corpus, the same passages in every step, "
        + "laid out in --partitions partitions (default: the master's cores, at most the rows), on --master (default "
        + DEFAULT_MASTER + "). 3 untimed steps, then --repeat timed ones; a step is the driver's update, the weights' "
        + "broadcast and the step's job. Prints mode \"fine_tune\", rows_per_step, tokens_per_step, threads, "
        + "median_step_ms, tokens_per_s (the texts' own tokens over the median step), partitions, loss_first, "
        + "loss_last, and step_split: the timed steps' task-slot time split into executor_compute, executor_gc, "
        + "result_transfer, driver_update, broadcast and idle_in_job (non_compute = 1 - executor_compute), with the "
        + "task results' MB per step and the most gradient values one task's result carried. With --peer torch, "
        + "PyTorch 2.7.1 (libtorch through DJL, --threads intra-op threads, default the "
        + "master's cores) takes one step between each two of ours on the same weights, head and batch, padded with "
        + "a mask: forward, backward (autograd), clipping and AdamW (mode \"torch_fine_tune\"), and our line gets "
        + "throughput_vs_torch. examples/peers/torch_fine_tune.py prints the same fields for Debian's PyTorch on the "
        + "batch that the lab's --write-ids FILE writes (and then times nothing)."})
    boolean fineTune;

    /** Runs the fine-tuning benchmark; one JSON line per contender. */
    int run(BenchCommand bench, ParseResult parsed) {
        for (String option : OTHER_OPTIONS) {
            if (parsed.hasMatchedOption(option)) {
                throw new BadInputException(option + " is not an option of --fine-tune");
            }
        }
        boolean torch = false;
        for (String peer : bench.peers) {
            if (!"torch".equalsIgnoreCase(peer.trim())) {
                throw new BadInputException("--peer: unknown peer \"" + peer + "\" for --fine-tune, expected torch");
            }
            torch = true;
        }
        Integer given = bench.trainOptions.rowsPerStep;
        int rows = given == null ? DEFAULT_ROWS_PER_STEP : given;
        positive("--rows-per-step", rows);
        positive("--repeat", bench.repeat);
        Integer partitions = bench.sparkOptions.partitions;
        if (partitions != null) {
            positive("--partitions", partitions);
            if (partitions > rows) {
                throw new BadInputException("--partitions must be <= --rows-per-step (" + rows + "), got " + partitions);
            }
        }
        if (parsed.hasMatchedOption("--threads")) {
            positive("--threads", bench.threads);
            if (!torch) {
                throw new BadInputException("--threads sets PyTorch's threads: it needs --peer torch (ours runs on the "
                    + "master's cores: --master 'local[N]')");
            }
        }
        String corpus = bench.encoderOptions.corpus;
        Path dir = corpus != null ? Paths.get(corpus)
            : Paths.get(System.getProperty("spark.attention.home", "."), "examples", "data", "austen");
        if (!Files.isDirectory(dir)) {
            throw new BadInputException((corpus == null ? "bundled corpus " : "--corpus ") + dir + ": no such directory");
        }
        FineTuneBatch batch;
        try {
            batch = FineTuneBatch.austen(dir, rows);
        } catch (IllegalArgumentException e) {
            throw new BadInputException("--rows-per-step: " + e.getMessage(), e);
        }
        String writeIds = bench.encoderOptions.writeIds;
        if (writeIds != null) {
            writeBatch(batch, writeIds);
            return 0;
        }
        if (torch) {
            TorchPeers.checkBuilt();
        }
        SparkBenchOptions.pollExecutorMetrics();
        String master = bench.sparkOptions.master != null ? bench.sparkOptions.master : DEFAULT_MASTER;
        SparkSession session = SparkSessions.start("spark-attention bench --fine-tune", master);
        int cores = session.sparkContext().defaultParallelism();
        TorchRuntime runtime = torch
            ? TorchPeers.runtime(parsed.hasMatchedOption("--threads") ? bench.threads : cores) : null;
        int parts = partitions != null ? partitions : Math.min(rows, cores);
        for (BenchResult line : new FineTuneBenchmark(session, bundledEncoder(), batch, parts, bench.repeat)
            .run(runtime)) {
            System.out.println(line.toJson());
        }
        System.out.flush();
        return 0;
    }

    /**
     * The batch as JSON lines ({@code {"input_ids": [...], "label": k}}, in order) for
     * examples/peers/torch_fine_tune.py; written whole or not at all.
     */
    private static void writeBatch(FineTuneBatch batch, String file) {
        ObjectMapper json = new ObjectMapper();
        try {
            OutputFile.writeJsonLines("bench", "--write-ids", file, "input_ids", staged -> {
                try (BufferedWriter out = Files.newBufferedWriter(staged, StandardCharsets.UTF_8)) {
                    for (int i = 0; i < batch.rows(); i++) {
                        out.write(json.writeValueAsString(Map.of("input_ids", batch.ids()[i], "label",
                            batch.labels()[i])));
                        out.newLine();
                    }
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("--write-ids " + file + ": " + e.getMessage(), e);
        }
    }

    /** all-MiniLM-L6-v2 from the class path: PyTorch's starting weights, the fit's bundled model's. */
    private static BertEncoder bundledEncoder() {
        try {
            return BundledModels.encoder(BundledModels.ALL_MINILM_L6_V2);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void positive(String option, int value) {
        if (value < 1) {
            throw new BadInputException(option + " must be >= 1, got " + value);
        }
    }
}

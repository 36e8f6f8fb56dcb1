package io.sparkattention.examples.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sparkattention.examples.common.BadInputException;
import io.sparkattention.examples.common.OutputFile;
import io.sparkattention.examples.common.SparkSessions;
import io.sparkattention.io.BundledModels;
import io.sparkattention.bert.BertEncoder;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The encoder mode of {@code spark-attention bench} ({@code --encoder}): all-MiniLM-L6-v2 over
 * the demo's Austen passages (or fixed lengths), the library's raw encoder against ONNX Runtime on
 * the same ONNX file ({@link EncoderBenchmark}). A mixin of {@link BenchCommand}, sharing its
 * {@code --seq-len}, {@code --threads}, {@code --repeat} and {@code --peer}.
 */
final class EncoderBenchOptions {

    /** Options of the other modes, which mean nothing to an encoder run. */
    private static final List<String> OTHER_OPTIONS = List.of("--head-dim", "--batch-heads", "--causal",
        "--backward", "--train", "--rows-per-step", "--tile-ops", "--block-q", "--block-k", "--compare-causal",
        "--layer", "--embed-dim", "--num-heads", "--rows", "--strategy", "--cache-input", "--flat", "--gemm", "--gemm-products");

    /**
     * Partitions of the texts through Spark by default: four per core of the 2-core machine, so a
     * slow task does not hold the job while each task still runs hundreds of texts.
     */
    static final int DEFAULT_PARTITIONS = 8;

    /** The peers of an encoder run. */
    private static final List<String> PEERS = List.of("ort", "torch");

    @Option(names = "--encoder", description = {"Time all-MiniLM-L6-v2 (the bundled ONNX file) on --texts of the demo's "
        + "Austen passages, evenly spaced through the corpus and tokenized by the bundled tokenizer (their real lengths, "
        + "[CLS] and [SEP] included), or with --seq-len on N sequences of each fixed length: the library's raw encoder "
        + "(BertEncoder.forward on each text's own ids, the texts shared by --threads threads; mode \"encoder\"). "
        + "With --peer ort, ONNX Runtime runs the same file (all graph optimisations, --threads intra-op threads; mode \"ort_encoder\") fed "
        + "as its users feed it: sorted by length in batches of 32 padded to the longest (batching \"sorted32\") and "
        + "in input order in batches of 8 (\"inorder8\"), with padding_share. Every contender pools each text's "
        + "sentence embedding (mean over its tokens, L2-normalised); the lines carry the embeddings' checksum. "
        + "tokens_per_s and sentences_per_s count the texts' own tokens over the median time; gflops counts 8·L·E² + "
        + "4·L·E·I + 4·L²·E per layer and text. The encoder's line gets throughput_vs_ort (ONNX Runtime sorted32's "
        + "median time over its own) and throughput_vs_ort_inorder8. With --peer torch, PyTorch 2.7.1 (libtorch through DJL, "
        + "--threads intra-op threads; mode \"torch_encoder\") runs the same weights sorted in batches of 32 with an "
        + "attention mask, and the encoder's line gets throughput_vs_torch; --peer ort,torch runs both. With --spark, the BertEncoderModel stage over the "
        + "same texts' ids, cached in --partitions partitions (default " + DEFAULT_PARTITIONS + "; mode "
        + "\"spark_encoder\", --master), and, with the lab's compare-kernel flag, the raw encoder on the local master's cores "
        + "in the same run (throughput_vs_raw_encoder on the stage's line). "
        + "E.g. --encoder --threads 2 --peer ort."})
    boolean encoder;

    @Option(names = "--texts", defaultValue = "2000", paramLabel = "N",
        description = "With --encoder: texts timed (default ${DEFAULT-VALUE}); with --lm: texts scored (default "
            + LmBenchOptions.DEFAULT_TEXTS + ").")
    int texts;

    @Option(names = "--corpus", paramLabel = "DIR",
        description = "With --encoder, --fine-tune or --lm: the books the passages come from (default: the bundled "
            + "examples/data/austen).")
    String corpus;

    @Option(names = "--write-ids", hidden = true, paramLabel = "FILE",
        description = "With --encoder (or --fine-tune, each row's label too): write the texts' token ids as JSON lines ({\"input_ids\": [...]}, one per text, "
            + "in input order) to FILE for examples/peers/torch_encoder.py, and time nothing.")
    String writeIds;

    /** Whether an option of this mode was given without {@code --encoder}. */
    void rejectWithoutEncoder(ParseResult parsed) {
        for (String option : List.of("--texts", "--corpus", "--write-ids")) {
            if (parsed.hasMatchedOption(option)) {
                throw new BadInputException(option + " needs --encoder");
            }
        }
    }

    /** Runs the encoder benchmark; one JSON line per contender and length. */
    int run(BenchCommand bench, ParseResult parsed) {
        for (String option : OTHER_OPTIONS) {
            if (parsed.hasMatchedOption(option)) {
                throw new BadInputException(option + " is not an option of --encoder");
            }
        }
        positive("--texts", texts);
        positive("--threads", bench.threads);
        positive("--repeat", bench.repeat);
        boolean ort = peer(bench.peers, "ort"), torch = peer(bench.peers, "torch");
        SparkBenchOptions sparkOptions = bench.sparkOptions;
        if (sparkOptions.spark) {
            if (bench.peerOnly) {
                throw new BadInputException("--peer-only times the peers in this JVM, not with --spark");
            }
            checkSpark(parsed, sparkOptions, ort || torch);
        } else if (sparkOptions.partitions != null || sparkOptions.compareKernel || sparkOptions.master != null) {
            throw new BadInputException("--partitions, --compare-kernel and --master need --spark");
        }
        List<EncoderTexts> inputs = new ArrayList<>();
        if (bench.seqLens == null) {
            inputs.add(austen());
        } else {
            for (int n : bench.seqLens) {
                if (n < 2 || n > BundledMiniLm.MAX_LENGTH) {
                    throw new BadInputException("--seq-len with --encoder must be in [2, " + BundledMiniLm.MAX_LENGTH
                        + "] ([CLS] and [SEP] included), got " + n);
                }
                inputs.add(EncoderTexts.fixed(n, texts));
            }
        }
        if (writeIds != null) {
            writeIds(inputs, writeIds);
            return 0;
        }
        TorchRuntime torchRuntime = torch ? TorchPeers.runtime(bench.threads) : null;
        BertEncoder encoder = bundledEncoder();
        if (sparkOptions.spark) {
            return runSpark(bench, encoder, inputs);
        }
        for (EncoderTexts input : inputs) {
            for (BenchResult result : EncoderBenchmark.run(input, encoder, !bench.peerOnly, ort, torchRuntime,
                bench.threads, bench.repeat)) {
                System.out.println(result.toJson());
            }
            System.out.flush();
        }
        return 0;
    }

    /** The options of a run through Spark, checked before any work. */
    private static void checkSpark(ParseResult parsed, SparkBenchOptions options, boolean ort) {
        if (parsed.hasMatchedOption("--threads")) {
            throw new BadInputException("--threads is not an option of --spark (it runs on the cluster's cores: "
                + "--master 'local[N]')");
        }
        if (ort) {
            throw new BadInputException("--peer runs beside the raw encoder, not with --spark (use --compare-kernel)");
        }
        if (options.partitions != null) {
            positive("--partitions", options.partitions);
        }
        String master = SparkSessions.masterFor(options.master);
        if (options.compareKernel && !master.startsWith("local")) {
            throw new BadInputException("--compare-kernel needs a local master (the raw encoder runs in this JVM), got "
                + master);
        }
    }

    private static int runSpark(BenchCommand bench, BertEncoder encoder, List<EncoderTexts> inputs) {
        SparkBenchOptions options = bench.sparkOptions;
        int parts = options.partitions == null ? DEFAULT_PARTITIONS : options.partitions;
        SparkBenchOptions.pollExecutorMetrics();
        SparkSession session = SparkSessions.start("spark-attention bench --encoder", options.master);
        SparkEncoderBenchmark runner = new SparkEncoderBenchmark(session, encoder, parts, bench.repeat);
        for (EncoderTexts input : inputs) {
            for (BenchResult result : runner.run(input, options.compareKernel)) {
                System.out.println(result.toJson());
            }
            System.out.flush();
        }
        return 0;
    }

    /** all-MiniLM-L6-v2 from the class path. */
    private static BertEncoder bundledEncoder() {
        try {
            return BundledModels.encoder(BundledModels.ALL_MINILM_L6_V2);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private EncoderTexts austen() {
        Path dir = corpus != null ? Paths.get(corpus)
            : Paths.get(System.getProperty("spark.attention.home", "."), "examples", "data", "austen");
        if (!Files.isDirectory(dir)) {
            throw new BadInputException((corpus == null ? "bundled corpus " : "--corpus ") + dir + ": no such directory");
        }
        try {
            return EncoderTexts.austen(dir, texts);
        } catch (IllegalArgumentException e) {
            throw new BadInputException("--texts: " + e.getMessage(), e);
        }
    }

    /** The texts' ids as JSON lines, every length's after the other's; written whole or not at all. */
    private static void writeIds(List<EncoderTexts> inputs, String file) {
        ObjectMapper json = new ObjectMapper();
        try {
            OutputFile.writeJsonLines("bench", "--write-ids", file, "input_ids", staged -> {
                try (BufferedWriter out = Files.newBufferedWriter(staged, StandardCharsets.UTF_8)) {
                    for (EncoderTexts input : inputs) {
                        for (int[] ids : input.ids()) {
                            out.write(json.writeValueAsString(Map.of("input_ids", ids)));
                            out.newLine();
                        }
                    }
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("--write-ids " + file + ": " + e.getMessage(), e);
        }
    }

    /** Whether {@code --peer} names {@code name}; refuses a peer the encoder mode does not know. */
    static boolean peer(List<String> peers, String name) {
        boolean named = false;
        for (String peer : peers) {
            String p = peer.trim().toLowerCase(Locale.ROOT);
            if (!PEERS.contains(p)) {
                throw new BadInputException("--peer: unknown peer \"" + peer + "\" for --encoder, expected ort, torch "
                    + "or ort,torch");
            }
            named |= p.equals(name);
        }
        return named;
    }

    private static void positive(String option, int value) {
        if (value < 1) {
            throw new BadInputException(option + " must be >= 1, got " + value);
        }
    }
}

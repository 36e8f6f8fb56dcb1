package io.sparkattention.examples.bench;

import io.sparkattention.examples.common.BadInputException;
import io.sparkattention.gpt.GptDecoder;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParseResult;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The language-model mode of {@code spark-attention bench} ({@code --lm}), see
 * {@link LmBenchmark}. A mixin of {@link BenchCommand}, sharing its {@code --threads},
 * {@code --repeat}, {@code --peer}, {@code --texts} and {@code --corpus}.
 */
final class LmBenchOptions {

    /** Texts scored unless {@code --texts} says otherwise: two of PyTorch's batches of 32. */
    static final int DEFAULT_TEXTS = 64;
    /** Ids of each generation prompt: the first ones of an Austen passage at least that long. */
    static final int PROMPT_TOKENS = 64;
    /** New ids generated after each prompt. */
    static final int NEW_TOKENS = 64;
    /** Prompts per generation call: one row, and a batch of eight. */
    static final int[] BATCHES = {1, 8};
    /** The parts of the benchmark, run in this order. */
    static final List<String> MODES = List.of("lm_score", "lm_generate", "lm_memory");

    /** Options of the other modes, which mean nothing to a language-model run. */
    private static final List<String> OTHER_OPTIONS = List.of("--seq-len", "--head-dim", "--batch-heads", "--causal",
        "--backward", "--train", "--rows-per-step", "--tile-ops", "--block-q", "--block-k", "--compare-causal",
        "--layer", "--embed-dim", "--num-heads", "--rows", "--strategy", "--cache-input", "--flat", "--gemm",
        "--gemm-products", "--spark", "--compare-kernel", "--partitions", "--master", "--write-ids");

    @Option(names = "--lm", description = {"Time a GPT-2-small-shaped decoder (12 layers, 768 wide, 12 heads, 1,024 "
        + "positions, 50,257 ids, tied head) with seeded random weights (Hugging Face's GPT-2 initialisation) in this "
        + "JVM on --threads threads: scoring (mode \"lm_score\": every token's log-probability of --texts (default "
        + DEFAULT_TEXTS + ") Austen passages tokenized by GPT-2's tokenizer, unpadded, in the encoder stage's batches; "
        + "tokens_per_s) and greedy generation (mode \"lm_generate\": " + NEW_TOKENS + " new ids after "
        + PROMPT_TOKENS + "-id prompts, in calls of 1 and of 8 prompts, one call per thread at a time; "
        + "new_tokens_per_s, median_step_ms). With --peer torch, PyTorch 2.7.1 (libtorch through DJL, --threads "
        + "intra-op threads) runs the same weights: scoring sorted in padded batches of 32 with an attention mask "
        + "(\"torch_lm_score\"), generation with its KV cache (\"torch_lm_generate\"); both are checked against ours "
        + "before anything is timed, and our lines get throughput_vs_torch. Beside them, round-robin: the LM head "
        + "alone (\"lm_head\"; our line's head_share_of_time) and the FMA loop on as many flops (\"fma\"; "
        + "fraction_of_fma on each line). --lm-mode picks one part."})
    boolean lm;

    @Option(names = "--lm-mode", split = ",", paramLabel = "MODE",
        description = "With --lm: lm_score, lm_generate (default both), or lm_memory: a GPT of 8,192 positions "
            + "(4 layers, 256 wide, 4 heads, 256 byte ids, random weights) scoring one 8,192-id row of the books' "
            + "bytes and generating from its first 8,128 to 8,192, once each, with the heap's peak (run it with "
            + "JAVA_OPTS=-Xmx512m).")
    List<String> modes = new ArrayList<>();

    @Option(names = "--write-model", hidden = true, paramLabel = "DIR",
        description = "With --lm --lm-mode lm_memory: write its model as a Hugging Face GPT-2 directory (DIR/model) "
            + "and its rows as JSON lines of input_ids (DIR/score.jsonl: the 8,192-id row; DIR/prompt.jsonl: its "
            + "first 8,128 ids) for the perplexity and generate commands, and time nothing.")
    String writeModel;

    /** Whether an option of this mode was given without {@code --lm}. */
    void rejectWithoutLm(ParseResult parsed) {
        for (String option : List.of("--lm-mode", "--write-model")) {
            if (parsed.hasMatchedOption(option)) {
                throw new BadInputException(option + " needs --lm");
            }
        }
    }

    /** Runs the language-model benchmark; one JSON line per contender. */
    int run(BenchCommand bench, ParseResult parsed) {
        for (String option : OTHER_OPTIONS) {
            if (parsed.hasMatchedOption(option)) {
                throw new BadInputException(option + " is not an option of --lm");
            }
        }
        List<String> chosen = new ArrayList<>();
        for (String mode : modes) {
            String m = mode.trim().toLowerCase(Locale.ROOT);
            if (!MODES.contains(m)) {
                throw new BadInputException("--lm-mode: unknown mode \"" + mode + "\", expected lm_score, lm_generate or "
                    + "lm_memory");
            }
            chosen.add(m);
        }
        if (chosen.isEmpty()) {
            chosen.addAll(MODES.subList(0, 2));
        }
        boolean torch = false;
        for (String peer : bench.peers) {
            if (!"torch".equalsIgnoreCase(peer.trim())) {
                throw new BadInputException("--peer: unknown peer \"" + peer + "\" for --lm, expected torch");
            }
            torch = true;
        }
        if (chosen.contains("lm_memory") && (chosen.size() > 1 || torch)) {
            throw new BadInputException("--lm-mode lm_memory runs alone, without --peer (its heap is the figure)");
        }
        if (writeModel != null && !chosen.equals(List.of("lm_memory"))) {
            throw new BadInputException("--write-model goes with --lm-mode lm_memory");
        }
        int texts = parsed.hasMatchedOption("--texts") ? bench.encoderOptions.texts : DEFAULT_TEXTS;
        positive("--texts", texts);
        positive("--threads", bench.threads);
        positive("--repeat", bench.repeat);
        if (ModuleLayer.boot().findModule("jdk.incubator.vector").isEmpty()) {
            throw new BadInputException("--lm times the FMA loop beside the decoder, which needs the Vector API: run "
                + "the JVM with --add-modules=jdk.incubator.vector");
        }
        String corpus = bench.encoderOptions.corpus;
        Path dir = corpus != null ? Paths.get(corpus)
            : Paths.get(System.getProperty("spark.attention.home", "."), "examples", "data", "austen");
        if (!Files.isDirectory(dir)) {
            throw new BadInputException((corpus == null ? "bundled corpus " : "--corpus ") + dir + ": no such directory");
        }
        if (torch) {
            TorchPeers.checkBuilt();
        }
        if (chosen.contains("lm_memory")) {
            int[] row;
            try {
                row = LmMemoryBenchmark.bytes(dir, LmMemoryBenchmark.CONFIG.positions());
            } catch (IllegalArgumentException e) {
                throw new BadInputException("--lm-mode lm_memory: " + e.getMessage(), e);
            }
            if (writeModel != null) {
                LmMemoryBenchmark.write(row, Paths.get(writeModel));
                return 0;
            }
            print(LmMemoryBenchmark.run(row));
            return 0;
        }
        // the inputs first: a corpus too small is refused before the model is made
        EncoderTexts scored = null;
        List<int[][]> prompts = new ArrayList<>();
        try {
            if (chosen.contains("lm_score")) {
                scored = EncoderTexts.austen(dir, texts, HfTokens::gpt2);
            }
            if (chosen.contains("lm_generate")) {
                for (int batch : BATCHES) {
                    prompts.add(LmPrompts.austen(dir, batch * bench.threads, PROMPT_TOKENS));
                }
            }
        } catch (IllegalArgumentException e) {
            throw new BadInputException((scored == null && chosen.contains("lm_score") ? "--texts: " : "--lm: ")
                + e.getMessage(), e);
        }
        GptDecoder decoder = new GptDecoder(RandomGpt.weights(RandomGpt.gpt2Small()));
        TorchRuntime runtime = torch ? TorchPeers.runtime(bench.threads) : null;
        try (TorchLm lm = torch ? runtime.lm(RandomGpt.torch(decoder.weights())) : null) {
            if (scored != null) {
                print(LmBenchmark.score(decoder, scored, runtime, lm, bench.threads, bench.repeat));
            }
            for (int i = 0; i < prompts.size(); i++) {
                print(LmBenchmark.generate(decoder, prompts.get(i), BATCHES[i], NEW_TOKENS, runtime, lm, bench.threads,
                    bench.repeat));
            }
        }
        return 0;
    }

    private static void print(List<BenchResult> results) {
        results.forEach(r -> System.out.println(r.toJson()));
        System.out.flush();
    }

    private static void positive(String option, int value) {
        if (value < 1) {
            throw new BadInputException(option + " must be >= 1, got " + value);
        }
    }
}

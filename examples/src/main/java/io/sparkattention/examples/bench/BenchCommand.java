package io.sparkattention.examples.bench;

import io.sparkattention.examples.common.BadInputException;
import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.TileOps;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/** {@code spark-attention bench}: times attention on random data, one JSON line per configuration. */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = {"Times the attention kernel on random data after a warm-up and prints one JSON line per "
        + "configuration: seq_len, head_dim, batch_heads, causal, threads, median_ms, min_ms, max_ms, gflops, blas "
        + "(and gc: the JVM's garbage collectors).",
        "gflops counts 4·L·S·d·BH (causal: 2·L·(L+1)·d·BH) over the median time.",
        "With --backward, the backward kernel beside the forward (mode \"backward\", gflops counting 2.5x the "
            + "forward's flops, vs_forward); with --train, training through Spark (mode \"train\", tokens_per_s).",
        "With --peer ort, ONNX Runtime's MultiHeadAttention runs the same shapes in the same JVM (mode \"ort\").",
        "With --encoder, all-MiniLM-L6-v2 on the demo's Austen passages (modes \"encoder\", \"ort_encoder\", "
            + "\"torch_encoder\").",
        "With --fine-tune, all-MiniLM-L6-v2 fine-tuned through Spark on Austen passages (modes \"fine_tune\", "
            + "\"torch_fine_tune\").",
        "With --lm, a GPT-2-small-shaped decoder scoring Austen passages and generating greedily (modes \"lm_score\", "
            + "\"lm_generate\", \"torch_lm_score\", \"torch_lm_generate\", \"lm_head\", \"fma\").",
        "With --train-lm, a GPT trained on blocks of Austen in this JVM (modes \"train_lm\", \"torch_train_lm\").",
        "--peer-only times the peers alone in the JVM, to check their round-robin figures against.",
        "With --layer, a whole multi-head layer (--embed-dim, --num-heads, --rows) beside the kernel, or through Spark "
            + "with --spark (modes \"layer\", \"spark_layer\", \"ort_layer\").",
        "Several contenders (--peer) run round-robin, repetition by repetition, on the same data.",
        "The lab's own flags (--tile-ops, --block-q, --block-k, --compare-causal, --compare-kernel) are hidden here "
            + "and documented in BENCHMARKS.md."})
public final class BenchCommand implements Callable<Integer> {

    @Option(names = "--seq-len", split = ",", paramLabel = "N",
        description = "Sequence lengths (L = S), comma-separated.")
    List<Integer> seqLens;

    @Option(names = "--head-dim", defaultValue = "64", paramLabel = "D", description = "Head dimension (default ${DEFAULT-VALUE}).")
    int headDim;

    @Option(names = "--batch-heads", defaultValue = "1", paramLabel = "BH",
        description = "Independent (row, head) problems per pass (default ${DEFAULT-VALUE}).")
    int batchHeads;

    @Option(names = "--causal", description = "Causal (top-left) mask; masked tiles are skipped.")
    boolean causal;

    @Option(names = "--compare-causal", hidden = true,
        description = "Time every contender both without and with the causal mask, round-robin in one run "
            + "(for the causal / non-causal time ratio on the same machine state).")
    boolean compareCausal;

    @Option(names = "--backward", description = {"Also time the backward kernel (FlashAttention.backward on the pool "
        + "variant: its (key/value head, key chunk) units over --threads) on the same problems: the forward's output and log-sum-exp are "
        + "computed once, untimed, and a random output gradient is propagated. Each forward line (mode \"kernel\") "
        + "is followed by its backward line (mode \"backward\"), timed round-robin with it; the backward's gflops "
        + "count 2.5x the forward's flops (its five products of QK^T's size against the forward's two), and "
        + "vs_forward is its GFLOP/s over the forward line's."})
    boolean backward;

    @Option(names = "--threads", defaultValue = "1", paramLabel = "T", description = "Kernel threads (default ${DEFAULT-VALUE}).")
    int threads;

    @Option(names = "--repeat", defaultValue = "5", paramLabel = "R",
        description = "Timed repetitions; with --train, timed steps (default ${DEFAULT-VALUE}).")
    int repeat;

    /** {@code --spark}, {@code --strategy}, {@code --master}: the same problem through Spark. */
    @picocli.CommandLine.Mixin
    SparkBenchOptions sparkOptions = new SparkBenchOptions();

    /** {@code --train}, {@code --embed-dim}, {@code --num-heads}, {@code --rows-per-step}: training through Spark. */
    @picocli.CommandLine.Mixin
    TrainBenchOptions trainOptions = new TrainBenchOptions();

    /** {@code --layer}: the whole multi-head layer, in this JVM or through Spark. */
    @picocli.CommandLine.Mixin
    LayerBenchOptions layerOptions = new LayerBenchOptions();

    /** {@code --encoder}: all-MiniLM-L6-v2, the raw encoder against ONNX Runtime and PyTorch. */
    @picocli.CommandLine.Mixin
    EncoderBenchOptions encoderOptions = new EncoderBenchOptions();

    /** {@code --fine-tune}: all-MiniLM-L6-v2 fine-tuned through Spark, against PyTorch. */
    @picocli.CommandLine.Mixin
    FineTuneBenchOptions fineTuneOptions = new FineTuneBenchOptions();

    /** {@code --lm}: a GPT-2-small-shaped decoder scoring and generating, against PyTorch. */
    @picocli.CommandLine.Mixin
    LmBenchOptions lmOptions = new LmBenchOptions();

    /** {@code --train-lm}: a GPT trained in this JVM, against PyTorch. */
    @picocli.CommandLine.Mixin
    TrainLmBenchOptions trainLmOptions = new TrainLmBenchOptions();

    @Spec
    CommandSpec spec;

    @Option(names = "--block-q", hidden = true, paramLabel = "BQ", description = "Query rows per tile (default: the kernel's).")
    Integer blockQ;

    @Option(names = "--block-k", hidden = true, paramLabel = "BK", description = "Keys per tile (default: the kernel's).")
    Integer blockK;

    @Option(names = "--tile-ops", split = ",", hidden = true, paramLabel = "OPS",
        description = "Tile arithmetic to time side by side: vector, blas, blas-scalar, auto "
            + "(default: the JVM's choice, system property sparkattention.tileops).")
    List<String> tileOps;

    @Option(names = "--peer", split = ",", paramLabel = "PEER",
        description = "Also time a peer on the same shapes in this JVM, after the kernel at each length: ort "
            + "(ONNX Runtime's MultiHeadAttention, mha.onnx or mha_causal.onnx; needs --head-dim 64 and "
            + "--batch-heads a multiple of 16); fma (the machine's fp32 FMA rate in the same seconds, mode \"fma\"; "
            + "needs the Vector API). Not with --spark, except with --layer (ort: the whole layer as one ONNX graph). "
            + "With --encoder: ort, torch or ort,torch; with --fine-tune or --lm: torch (PyTorch 2.7.1 through DJL, built by "
            + "the launcher on first use).")
    List<String> peers = new ArrayList<>();

    @Option(names = "--peer-only",
        description = "With --encoder, --fine-tune or --train-lm: time only the --peer contenders, alone in this JVM (no encoder "
            + "or fit of ours, no Spark session), to check their round-robin figures against; the FMA loop still runs "
            + "beside them when the JVM sees the Vector API, so fraction_of_fma compares runs of a shared machine. "
            + "The peer's lines carry \"peer_only\": true.")
    boolean peerOnly;

    @Option(names = "--gemm", hidden = true, arity = "0..1", fallbackValue = GemmBenchmark.SHAPES,
        paramLabel = "MxNxK,...",
        description = "Time the projections y = x·W^T + b instead (default shapes " + GemmBenchmark.SHAPES + "): "
            + "the BLAS and the Vector API kernel round-robin on --threads threads (each its own products), mode "
            + "\"gemm\", vs_blas, gflops_thread_cpu (over the threads' own CPU time: on a loaded host it leaves out "
            + "the other jobs' turns); with --peer fma the FMA loop on the same threads in the same rounds, and "
            + "fraction_of_fma on every kernel's line.")
    String gemm;

    @Option(names = "--gemm-products", hidden = true, split = ",", paramLabel = "PRODUCT",
        defaultValue = "forward",
        description = "With --gemm, the products timed for each shape (default ${DEFAULT-VALUE}): forward "
            + "(y = x·W^T + b), transposed (y = dy·W on the prepared transpose, the input gradient), weight-gradient "
            + "(dW += dy^T·x, m the depth of its sum); each line names its product.")
    List<String> gemmProducts;

    @Option(names = "--layer-split", hidden = true,
        description = "Time the parts of one all-MiniLM-L6-v2 layer on 32 stacked sequences instead, round-robin "
            + "on one thread beside the whole layer: mode \"layer_split\", share_of_layer.")
    boolean layerSplit;

    @Override
    public Integer call() {
        if (peerOnly && !(encoderOptions.encoder || fineTuneOptions.fineTune || trainLmOptions.trainLm)) {
            throw new BadInputException("--peer-only needs --encoder, --fine-tune or --train-lm");
        }
        if (peerOnly && peers.isEmpty()) {
            throw new BadInputException("--peer-only needs --peer");
        }
        if (trainLmOptions.trainLm) {
            if (lmOptions.lm || encoderOptions.encoder || fineTuneOptions.fineTune) {
                throw new BadInputException("--train-lm, --lm, --encoder and --fine-tune are separate modes: give one "
                    + "of them");
            }
            return trainLmOptions.run(this, spec.commandLine().getParseResult());
        }
        trainLmOptions.rejectWithoutTrainLm(spec.commandLine().getParseResult());
        if (lmOptions.lm) {
            if (encoderOptions.encoder || fineTuneOptions.fineTune) {
                throw new BadInputException("--lm, --encoder and --fine-tune are separate modes: give one of them");
            }
            return lmOptions.run(this, spec.commandLine().getParseResult());
        }
        lmOptions.rejectWithoutLm(spec.commandLine().getParseResult());
        if (encoderOptions.encoder) {
            if (fineTuneOptions.fineTune) {
                throw new BadInputException("--encoder and --fine-tune are separate modes: give one of them");
            }
            return encoderOptions.run(this, spec.commandLine().getParseResult());
        }
        if (fineTuneOptions.fineTune) {
            return fineTuneOptions.run(this, spec.commandLine().getParseResult());
        }
        encoderOptions.rejectWithoutEncoder(spec.commandLine().getParseResult());
        if (layerSplit) {
            positive("--repeat", repeat);
            try {
                LayerSplitBenchmark.run(repeat).forEach(BenchCommand::print);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            return 0;
        }
        if (gemm == null && spec.commandLine().getParseResult().hasMatchedOption("--gemm-products")) {
            throw new BadInputException("--gemm-products needs --gemm");
        }
        if (gemm != null) {
            List<int[]> shapes;
            try {
                shapes = GemmBenchmark.shapes(gemm);
            } catch (IllegalArgumentException e) {
                throw new BadInputException("--gemm: " + e.getMessage());
            }
            positive("--repeat", repeat);
            positive("--threads", threads);
            List<GemmBenchmark.Product> products = new ArrayList<>();
            for (String name : gemmProducts) {
                try {
                    products.add(GemmBenchmark.Product.named(name));
                } catch (IllegalArgumentException e) {
                    throw new BadInputException("--gemm-products: " + e.getMessage());
                }
            }
            boolean fma = false;
            for (String peer : peers) {
                if (!peer.trim().equalsIgnoreCase("fma")) {
                    throw new BadInputException("--peer: unknown peer \"" + peer + "\" for --gemm, expected fma");
                }
                fma = true;
            }
            requireVectorApi(fma);
            GemmBenchmark.run(GemmBenchmark.kernels(), shapes, products, threads, fma, repeat)
                .forEach(BenchCommand::print);
            return 0;
        }
        if (seqLens == null) {
            throw new BadInputException("Missing required option: '--seq-len=N'");
        }
        if (layerOptions.layer) {
            return layerOptions.run(this, spec.commandLine().getParseResult());
        }
        if (trainOptions.train) {
            return trainOptions.run(this, spec.commandLine().getParseResult());
        }
        trainOptions.rejectWithoutTrain();
        if (backward && sparkOptions.spark) {
            throw new BadInputException("--backward times the kernel in this JVM, not with --spark");
        }
        if (sparkOptions.spark) {
            return sparkOptions.run(this);
        }
        sparkOptions.rejectWithoutSpark();
        for (int n : seqLens) {
            positive("--seq-len", n);
        }
        positive("--head-dim", headDim);
        positive("--batch-heads", batchHeads);
        positive("--threads", threads);
        positive("--repeat", repeat);
        boolean ort = false, fma = false;
        for (String peer : peers) {
            switch (peer.trim().toLowerCase(Locale.ROOT)) {
                case "ort":
                    ort = true;
                    break;
                case "fma":
                    fma = true;
                    break;
                default:
                    throw new BadInputException("--peer: unknown peer \"" + peer + "\", expected ort or fma");
            }
        }
        requireVectorApi(fma);
        if (ort && OrtBenchmark.unsupported(headDim, batchHeads) != null) {
            throw new BadInputException(OrtBenchmark.unsupported(headDim, batchHeads));
        }
        List<Boolean> masks = compareCausal ? List.of(false, true) : List.of(causal);
        List<KernelBenchmark> benches = new ArrayList<>();
        for (boolean c : masks) {
            AttentionSpec spec = AttentionSpec.defaults().withCausal(c);
            spec = spec.withBlocks(blockQ == null ? spec.queryBlock() : blockQ, blockK == null ? spec.keyBlock() : blockK);
            if (tileOps == null || tileOps.isEmpty()) {
                benches.add(new KernelBenchmark(spec, threads, repeat));
            } else {
                for (String name : tileOps) {
                    benches.add(new KernelBenchmark(spec, tileOps(name), threads, repeat));
                }
            }
        }
        for (KernelBenchmark bench : benches) {
            bench.warmUp(headDim, batchHeads);
            if (backward) {
                bench.warmUpBackward(headDim, batchHeads);
            }
        }
        List<OrtBenchmark> peerRuns = new ArrayList<>();
        try {
            if (ort) {
                for (boolean c : masks) {
                    OrtBenchmark peer = new OrtBenchmark(c, threads);
                    peerRuns.add(peer);
                    peer.warmUp();
                }
            }
            for (int n : seqLens) {
                // Every contender on the same data and the same moments of a shared machine.
                KernelBenchmark.Problem problem = new KernelBenchmark.Problem(n, headDim, batchHeads, n);
                List<Trial> trials = new ArrayList<>();
                try {
                    for (KernelBenchmark bench : benches) {
                        trials.add(bench.trial(problem));
                        if (backward) {
                            trials.add(bench.backwardTrial(problem));
                        }
                    }
                    for (OrtBenchmark peer : peerRuns) {
                        trials.add(peer.trial(n, batchHeads));
                    }
                    if (fma) {
                        trials.add(FmaPeak.trial(n, headDim, batchHeads, masks.get(0), threads));
                    }
                    List<BenchResult> results = Interleaved.time(trials, repeat);
                    if (fma) {
                        FmaPeak.addFractions(results.subList(0, results.size() - 1), results.get(results.size() - 1));
                    }
                    if (backward) {
                        for (int i = 0; i < 2 * benches.size(); i += 2) {
                            BenchResult forward = results.get(i), back = results.get(i + 1);
                            back.with("vs_forward", Math.round(back.gflops() / forward.gflops() * 1000) / 1000.0);
                        }
                    }
                    results.forEach(BenchCommand::print);
                } finally {
                    trials.forEach(Trial::close);
                }
            }
        } finally {
            peerRuns.forEach(OrtBenchmark::close);
        }
        return 0;
    }

    /** Refuses {@code --peer fma} on a JVM that does not see the Vector API the loop runs on. */
    private static void requireVectorApi(boolean fma) {
        if (fma && ModuleLayer.boot().findModule("jdk.incubator.vector").isEmpty()) {
            throw new BadInputException("--peer fma needs the Vector API: run the JVM with --add-modules=jdk.incubator.vector");
        }
    }

    private static TileOps tileOps(String name) {
        try {
            return TileOps.named(name);
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new BadInputException("--tile-ops: " + e.getMessage());
        }
    }

    private static void print(BenchResult result) {
        System.out.println(result.toJson());
        System.out.flush();
    }

    private static void positive(String option, int value) {
        if (value < 1) {
            throw new BadInputException(option + " must be >= 1, got " + value);
        }
    }
}

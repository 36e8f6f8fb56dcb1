package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import io.sparkattention.examples.common.Outputs;
import io.sparkattention.examples.common.OutputKind;
import io.sparkattention.examples.common.PngMark;
import io.sparkattention.examples.scaling.Implementation;
import io.sparkattention.examples.scaling.ScalingChart;
import io.sparkattention.examples.scaling.ScalingPoint;
import io.sparkattention.examples.scaling.ScalingRunner;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/** {@code spark-attention scaling}: time and memory against n, tiled kernel versus naive attention. */
@Command(name = "scaling", mixinStandardHelpOptions = true,
    description = {"Measures time and peak memory against the sequence length n for the tiled kernel "
        + "(FlashAttention) and for naive attention (the full n×n float32 score matrix, softmax, product), on one "
        + "head of n×d random inputs, single-threaded, both with the same BLAS; draws the log-log plot and prints "
        + "one JSON line per point to stdout.",
        "Each point runs in a fresh JVM (-Xmx from --heap, serial GC). Time: median wall time of --repeat passes "
        + "after a warm-up. Memory (peak_heap_mb): the heap pools' peak usage during one pass minus the heap in use "
        + "before the inputs existed: Q, K, V, the output and all scratch; allocated_mb: bytes the pass "
        + "allocated (ThreadMXBean). Naive points whose n×n scores cannot fit the heap are reported as skipped; "
        + "an OutOfMemoryError is reported as out_of_memory; neither stops the run.",
        "JSON fields: impl, seq_len, head_dim, heap_max_mb, blas, status (ok, skipped, out_of_memory, failed), "
        + "median_ms, min_ms, repeat, peak_heap_mb, allocated_mb, reason."},
    modelTransformer = ScalingCommand.OptionalOutput.class)
final class ScalingCommand implements Callable<Integer> {

    /** The plot's file when --output is not given (and --json is not set). */
    static final String DEFAULT_OUTPUT = "scaling.png";

    /** {@code --output} is optional here: {@value #DEFAULT_OUTPUT}, or no plot with --json. */
    static final class OptionalOutput implements CommandLine.IModelTransformer {
        @Override
        public CommandSpec transform(CommandSpec spec) {
            return OutputOptions.optional(spec, null, "PNG", "The plot (default " + DEFAULT_OUTPUT + ", none with "
                + "--json); drawn beside it and put in place when complete.");
        }
    }

    @Option(names = "--seq-len", split = ",", paramLabel = "N",
        defaultValue = "256,512,1024,2048,4096,8192,16384",
        description = "Sequence lengths (L = S), comma-separated (default ${DEFAULT-VALUE}).")
    List<Integer> seqLens;

    @Option(names = "--head-dim", defaultValue = "64", paramLabel = "D",
        description = "Head dimension (default ${DEFAULT-VALUE}).")
    int headDim;

    @Mixin
    OutputOptions output;

    @Option(names = "--json", description = "JSON lines only: no plot unless --output is given, no progress on stderr.")
    boolean jsonOnly;

    @Option(names = "--heap", defaultValue = "1g", paramLabel = "SIZE",
        description = "Maximum heap of each measuring JVM, as for -Xmx (default ${DEFAULT-VALUE}: naive attention "
            + "runs out of it at n = 16384, whose scores alone take 1 GiB, while the tiled kernel needs 16 MiB).")
    String heap;

    @Option(names = "--repeat", defaultValue = "3", paramLabel = "R",
        description = "Timed passes per point (default ${DEFAULT-VALUE}).")
    int repeat;

    @Option(names = "--warmup-ms", defaultValue = "1000", paramLabel = "MS",
        description = "JIT warm-up per point, on a small problem (default ${DEFAULT-VALUE}).")
    long warmupMillis;

    @Option(names = "--impl", split = ",", paramLabel = "IMPL", defaultValue = "tiled,naive",
        description = "Implementations to measure: tiled, naive (default ${DEFAULT-VALUE}).")
    List<String> impls;

    @Override
    public Integer call() throws IOException, InterruptedException {
        for (int n : seqLens) {
            if (n < 1) {
                throw new BadInputException("--seq-len must be >= 1, got " + n);
            }
        }
        if (headDim < 1) {
            throw new BadInputException("--head-dim must be >= 1, got " + headDim);
        }
        if (repeat < 1) {
            throw new BadInputException("--repeat must be >= 1, got " + repeat);
        }
        if (warmupMillis < 0) {
            throw new BadInputException("--warmup-ms must be >= 0, got " + warmupMillis);
        }
        List<Implementation> chosen = new ArrayList<>();
        for (String id : impls) {
            chosen.add(Implementation.of(Choices.check("--impl", id, List.of("tiled", "naive"))));
        }
        if (output.output == null && !jsonOnly) {
            output.output = DEFAULT_OUTPUT;
        }
        try (Outputs out = output.plan(OutputKind.png()).localOnly().check()) {
            measure(chosen, output.output == null ? null : out);
            return 0;
        }
    }

    /** Prints every point, and draws them into {@code out} unless it is null. */
    private void measure(List<Implementation> chosen, Outputs out) throws IOException, InterruptedException {
        ScalingRunner runner;
        try {
            runner = new ScalingRunner(heap, repeat, warmupMillis);
        } catch (IllegalArgumentException e) {
            throw new BadInputException(e.getMessage(), e);
        }

        List<ScalingPoint> points = new ArrayList<>();
        String blas = null;
        for (int n : seqLens) {
            for (Implementation impl : chosen) {
                ScalingPoint point = runner.measure(impl, n, headDim);
                points.add(point);
                blas = blas != null ? blas : point.blas();
                System.out.println(point.toJson());
                System.out.flush();
                progress(point);
            }
        }
        if (out != null) {
            String subtitle = String.format(Locale.ROOT, "one head, d = %d, float32, single thread, BLAS %s, "
                + "each point in its own JVM with -Xmx%s", headDim, blas == null ? "?" : blas, heap);
            Path plot = out.main().localPath();
            PngMark.write(new ScalingChart(points, subtitle).render(), plot);
            out.publish();
            if (!jsonOnly) {
                System.err.println("scaling: wrote " + output.output);
            }
        }
    }

    private void progress(ScalingPoint p) {
        if (jsonOnly) {
            return;
        }
        System.err.println(p.ok()
            ? String.format(Locale.ROOT, "scaling: %-5s n=%-6d %10.2f ms %10.2f MiB", p.impl().id(), p.seqLen(),
                p.medianMs(), p.peakHeapMb())
            : String.format(Locale.ROOT, "scaling: %-5s n=%-6d %s: %s", p.impl().id(), p.seqLen(), p.status(), p.reason()));
    }
}

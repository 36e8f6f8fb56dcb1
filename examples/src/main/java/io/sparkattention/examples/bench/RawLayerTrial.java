package io.sparkattention.examples.bench;

import io.sparkattention.kernel.Blas;
import io.sparkattention.kernel.RowMask;
import io.sparkattention.kernel.Workspace;
import io.sparkattention.nn.MultiHeadAttentionLayer;
import io.sparkattention.nn.AttentionWeightsMode;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The raw layer: {@link MultiHeadAttentionLayer#forward} on each row (self-attention, query = key
 * = value) in this JVM, the rows shared out to T threads one at a time (each thread takes the next
 * row when it finishes one, as Spark's task slots take the next task), each thread with its own
 * {@link Workspace}. Each output is reduced to its checksum ({@link OutputChecksum#of(float[], int)},
 * the stage's additions in the stage's order) and dropped, as the Spark benchmark does on the
 * executors. One untimed pass runs when the trial is made (class loading, first compilations).
 */
final class RawLayerTrial implements Trial {

    private final MultiHeadAttentionLayer layer;
    private final float[][] rows;
    private final int seqLen;
    private final int threads;
    private final ForkJoinPool pool;
    private final double[] checksums;

    /**
     * @param layer   the layer (its kernel's spec must be the stage's for equal numbers)
     * @param rows    R rows of L×E, row-major
     * @param seqLen  L
     * @param threads T
     */
    RawLayerTrial(MultiHeadAttentionLayer layer, float[][] rows, int seqLen, int threads) {
        this.layer = layer;
        this.rows = rows;
        this.seqLen = seqLen;
        this.threads = threads;
        this.pool = new ForkJoinPool(threads);
        this.checksums = new double[rows.length];
        runOnce();
    }

    @Override
    public void runOnce() {
        AtomicInteger next = new AtomicInteger();
        int width = layer.outputWidth();
        List<Callable<Void>> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            workers.add(() -> {
                Workspace ws = new Workspace();
                for (int i = next.getAndIncrement(); i < rows.length; i = next.getAndIncrement()) {
                    float[] x = rows[i];
                    float[] y = layer.forward(x, seqLen, x, x, seqLen, RowMask.NONE, AttentionWeightsMode.NONE, ws).values();
                    checksums[i] = OutputChecksum.of(y, width);
                }
                return null;
            });
        }
        for (Future<Void> done : pool.invokeAll(workers)) {
            try {
                done.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("raw layer interrupted", e);
            } catch (ExecutionException e) {
                throw new IllegalStateException("raw layer failed: " + e.getCause(), e.getCause());
            }
        }
    }

    /** The sum of the rows' checksums, in row order, after the last pass. */
    double checksum() {
        double sum = 0;
        for (double c : checksums) {
            sum += c;
        }
        return sum;
    }

    @Override
    public boolean shortRun() {
        return BenchResult.layerFlops(seqLen, layer.outputWidth(), rows.length) <= KernelBenchmark.UNTIMED_RUN_MAX_FLOPS;
    }

    @Override
    public BenchResult result(double[] wallMs, double[] cpuMs) {
        double checksum = checksum();
        if (!Double.isFinite(checksum)) {
            throw new IllegalStateException("raw layer produced a non-finite output (checksum " + checksum + ")");
        }
        int embedDim = layer.outputWidth();
        return BenchResult.layer("layer", seqLen, embedDim, layer.weights().numHeads(), rows.length, threads, wallMs,
                Blas.name())
            .withCpuTimes(cpuMs, BenchResult.layerFlops(seqLen, embedDim, rows.length))
            .with("tile_ops", layer.kernel().ops().name())
            .with("checksum", checksum);
    }

    @Override
    public void close() {
        pool.shutdown();
    }
}

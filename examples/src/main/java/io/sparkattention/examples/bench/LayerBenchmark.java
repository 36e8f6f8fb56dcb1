package io.sparkattention.examples.bench;

import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.nn.MultiHeadAttentionLayer;
import io.sparkattention.nn.MultiHeadAttentionWeights;

import java.util.ArrayList;
import java.util.List;

/**
 * Times the raw layer against the attention kernel in this JVM: {@link RawLayerTrial} on R rows
 * of L×E and the kernel on {@link #KERNEL_HEADS} heads of {@link #KERNEL_SEQ_LEN}×{@link #KERNEL_HEAD_DIM}
 * (the kernel's reference point, the main table of BENCHMARKS.md), both on T threads,
 * round-robin, and optionally ONNX Runtime's layer ({@link OrtLayerTrial}) on the same rows and
 * weights. The layer's line carries {@code gflops_vs_kernel} (its GFLOP/s over the kernel's) and,
 * with ONNX Runtime, {@code throughput_vs_ort_layer} (ONNX Runtime's median time over the layer's).
 */
public final class LayerBenchmark {

    /** The kernel's problem beside the layer: 16 heads of 1024×64, its main benchmark shape. */
    static final int KERNEL_SEQ_LEN = 1024;
    static final int KERNEL_HEAD_DIM = 64;
    static final int KERNEL_HEADS = 16;

    private final MultiHeadAttentionWeights weights;
    private final int rows;
    private final int threads;
    private final int repeat;
    private final boolean ort;
    private final KernelBenchmark kernel;

    /**
     * @param weights the layer (self-attention: kdim = vdim = E)
     * @param rows    R
     * @param threads T, for the layer, the kernel and ONNX Runtime
     * @param repeat  timed repetitions
     * @param ort     also time ONNX Runtime's layer
     */
    public LayerBenchmark(MultiHeadAttentionWeights weights, int rows, int threads, int repeat, boolean ort) {
        this.weights = weights;
        this.rows = rows;
        this.threads = threads;
        this.repeat = repeat;
        this.ort = ort;
        this.kernel = new KernelBenchmark(AttentionSpec.defaults(), threads, repeat);
    }

    /** Warms the JIT up on the kernel (the layer and ONNX Runtime run once when their trials are made). */
    public void warmUp() {
        kernel.warmUp(KERNEL_HEAD_DIM, KERNEL_HEADS);
    }

    /** Times one length: the layer's line, the kernel's, then ONNX Runtime's. */
    public List<BenchResult> run(int seqLen) {
        float[][] x = RandomLayer.rows(rows, seqLen, weights.embedDim());
        MultiHeadAttentionLayer layer = new MultiHeadAttentionLayer(weights, new FlashAttention(AttentionSpec.defaults()));
        List<Trial> trials = new ArrayList<>();
        OrtLayer peer = null;
        try {
            trials.add(new RawLayerTrial(layer, x, seqLen, threads));
            trials.add(kernel.trial(new KernelBenchmark.Problem(KERNEL_SEQ_LEN, KERNEL_HEAD_DIM, KERNEL_HEADS,
                KERNEL_SEQ_LEN)));
            if (ort) {
                peer = new OrtLayer(weights, threads);
                trials.add(new OrtLayerTrial(peer, x, seqLen));
            }
            List<BenchResult> results = Interleaved.time(trials, repeat);
            BenchResult raw = results.get(0), attention = results.get(1);
            raw.with("gflops_vs_kernel", Math.round(raw.gflops() / attention.gflops() * 1000) / 1000.0);
            if (ort) {
                raw.with("throughput_vs_ort_layer", SparkLayerBenchmark.ratio(results.get(2), raw));
            }
            return results;
        } finally {
            trials.forEach(Trial::close);
            if (peer != null) {
                peer.close();
            }
        }
    }
}

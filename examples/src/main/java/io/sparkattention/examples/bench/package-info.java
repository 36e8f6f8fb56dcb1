/**
 * The lab: the instruments behind {@code spark-attention bench} and BENCHMARKS.md, kept apart
 * from the user's commands ({@code apply}, {@code sdpa}, {@code demo}, {@code heatmap},
 * {@code scaling}, {@code train}, {@code predict} in {@code io.sparkattention.examples.cli}).
 *
 * <ul>
 *   <li>The command {@code spark-attention bench} ({@link io.sparkattention.examples.bench.BenchCommand})
 *       and its modes' options: {@code --spark}, {@code --train} and {@code --layer}.</li>
 *   <li>Contenders timed round-robin on the same data ({@link
 *       io.sparkattention.examples.bench.Interleaved}): the kernel ({@link
 *       io.sparkattention.examples.bench.KernelBenchmark}), ONNX Runtime's attention and its bundled
 *       models ({@link io.sparkattention.examples.bench.OrtBenchmark}), the machine's FMA ceiling
 *       ({@link io.sparkattention.examples.bench.FmaPeak}), and the Spark stage ({@link
 *       io.sparkattention.examples.bench.SparkBenchmark}).</li>
 *   <li>The whole multi-head layer ({@code bench --layer}): the raw layer beside the kernel ({@link
 *       io.sparkattention.examples.bench.LayerBenchmark}), the {@code MultiHeadAttentionModel} stage
 *       ({@link io.sparkattention.examples.bench.SparkLayerBenchmark}) and ONNX Runtime's whole-layer graph
 *       ({@link io.sparkattention.examples.bench.OrtLayer}), on the same rows and weights ({@link
 *       io.sparkattention.examples.bench.RandomLayer}); the models come from {@code examples/peers/make_ort_models.py}
 *       and PyTorch's forward from {@code examples/peers/torch_layer.py}.</li>
 *   <li>The settling logic: untimed runs until times settle and the JIT compilers are quiet
 *       ({@link io.sparkattention.examples.bench.CompilerClock}).</li>
 *   <li>Process and heap figures ({@link io.sparkattention.examples.bench.ProcessMemory}, {@link
 *       io.sparkattention.examples.bench.HeapPools}, {@link
 *       io.sparkattention.examples.bench.ExecutorPeakHeap}), also used by the scaling probe.</li>
 * </ul>
 *
 * <p>The lab measures the library through its public API and never holds a copy of library
 * code: a variant to compare is a change to the library, measured before and after. What the lab
 * measures, on which machines, and the lab-only flags of {@code bench} are in BENCHMARKS.md.
 */
package io.sparkattention.examples.bench;

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
 *   <li>The encoder ({@code bench --encoder}): all-MiniLM-L6-v2 on the demo's Austen passages ({@link
 *       io.sparkattention.examples.bench.EncoderTexts}), the raw encoder against ONNX Runtime on the same ONNX file
 *       batched as its users batch ({@link io.sparkattention.examples.bench.EncoderBenchmark}, {@link
 *       io.sparkattention.examples.bench.EncoderBatching}) and the encoder stage through Spark ({@link
 *       io.sparkattention.examples.bench.SparkEncoderBenchmark}); PyTorch's forward from {@code
 *       examples/peers/torch_encoder.py}.</li>
 *   <li>The settling logic: untimed runs until times settle and the JIT compilers are quiet
 *       ({@link io.sparkattention.examples.bench.CompilerClock}).</li>
 *   <li>Process and heap figures ({@link io.sparkattention.examples.bench.ProcessMemory}, {@link
 *       io.sparkattention.examples.bench.HeapPools}, {@link
 *       io.sparkattention.examples.bench.ExecutorPeakHeap}), also used by the scaling probe.</li>
 * </ul>
 *
 * <p>The lab measures the library through its public API, and through two handles of the examples
 * jar that sit in the packages whose non-public steps they call ({@code bert.EncoderLayerParts}
 * for {@code --layer-split}, {@code kernel.TileParts} for the JMH tile benchmarks); it never holds
 * a copy of library code: a variant to compare is a change to the library, measured before and
 * after. It imports the command line's shared parts ({@code examples.common}), never the user's
 * commands ({@code examples.cli}). What the lab
 * measures, on which machines, and the lab-only flags of {@code bench} are in BENCHMARKS.md.
 */
package io.sparkattention.examples.bench;

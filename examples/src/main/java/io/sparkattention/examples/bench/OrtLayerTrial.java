package io.sparkattention.examples.bench;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtException;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * {@link OrtLayer} on the benchmark's rows: the rows go to ONNX Runtime in batches of
 * {@link #TOKENS_PER_RUN} tokens, one session run each, their input tensors made once here. One
 * untimed pass runs when the trial is made and reads every output back for the checksum (the
 * stage's additions in its order); the timed passes do not copy the outputs out.
 */
final class OrtLayerTrial implements Trial {

    /**
     * Tokens per session run (64 rows of 128): enough for ONNX Runtime's threads to share every
     * product, while its intermediates (q, k, v, the attention and the output: five times the
     * batch's input) stay in tens of MiB rather than five copies of all the rows.
     */
    static final int TOKENS_PER_RUN = 8192;

    private final OrtLayer layer;
    private final int rows;
    private final int seqLen;
    private final int rowsPerRun;
    private final List<OnnxTensor> batches = new ArrayList<>();
    private final double checksum;

    OrtLayerTrial(OrtLayer layer, float[][] x, int seqLen) {
        this.layer = layer;
        this.rows = x.length;
        this.seqLen = seqLen;
        this.rowsPerRun = Math.max(1, Math.min(x.length, TOKENS_PER_RUN / seqLen));
        int rowSize = seqLen * layer.embedDim();
        double sum = 0;
        try {
            for (int first = 0; first < x.length; first += rowsPerRun) {
                int count = Math.min(rowsPerRun, x.length - first);
                float[] packed = new float[Math.multiplyExact(count, rowSize)];
                for (int r = 0; r < count; r++) {
                    System.arraycopy(x[first + r], 0, packed, r * rowSize, rowSize);
                }
                OnnxTensor batch = layer.tensor(packed, new long[] {count, seqLen, layer.embedDim()});
                batches.add(batch);
                float[] y = layer.run(batch, true);
                for (int r = 0; r < count; r++) {
                    sum += OutputChecksum.of(Arrays.copyOfRange(y, r * rowSize, (r + 1) * rowSize), layer.embedDim());
                }
            }
        } catch (OrtException e) {
            close();
            throw new IllegalStateException("ONNX Runtime input: " + e.getMessage(), e);
        }
        checksum = sum;
    }

    @Override
    public void runOnce() {
        for (OnnxTensor batch : batches) {
            layer.run(batch, false);
        }
    }

    @Override
    public boolean shortRun() {
        return BenchResult.layerFlops(seqLen, layer.embedDim(), rows) <= KernelBenchmark.UNTIMED_RUN_MAX_FLOPS;
    }

    @Override
    public BenchResult result(double[] wallMs, double[] cpuMs) {
        if (!Double.isFinite(checksum)) {
            throw new IllegalStateException("ONNX Runtime produced a non-finite output (checksum " + checksum + ")");
        }
        return BenchResult.layer("ort_layer", seqLen, layer.embedDim(), layer.numHeads(), rows, layer.threads(),
                wallMs, "onnxruntime " + OrtBenchmark.ortVersion())
            .withCpuTimes(cpuMs, BenchResult.layerFlops(seqLen, layer.embedDim(), rows))
            .with("model", layer.model())
            .with("rows_per_run", rowsPerRun)
            .with("checksum", checksum);
    }

    @Override
    public void close() {
        batches.forEach(OnnxTensor::close);
    }
}

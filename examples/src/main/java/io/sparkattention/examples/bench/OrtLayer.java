package io.sparkattention.examples.bench;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import io.sparkattention.nn.MultiHeadAttentionWeights;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.HashMap;
import java.util.Map;

/**
 * ONNX Runtime's whole self-attention layer in this JVM: {@code mha_layer_h{H}.onnx} (bundled under
 * {@code /peers/ort/}, written by {@code examples/peers/make_ort_models.py}): x·w_in + b_in with the
 * packed input projection, split into q, k and v, {@code com.microsoft.MultiHeadAttention} with H
 * heads, and the output projection y = a·w_out + b_out. The weights are inputs of the graph, given
 * once here from PyTorch's layout (transposed: ONNX's MatMul takes in×out). Its intra-op threads
 * are T, inter-op 1, without spin-waiting (see {@link OrtBenchmark}).
 */
public final class OrtLayer implements AutoCloseable {

    /** Head counts with a bundled model (any E divisible by H). */
    static final int[] MODEL_HEADS = {1, 2, 4, 8, 12, 16};

    private final OrtEnvironment env = OrtEnvironment.getEnvironment();
    private final OrtSession session;
    private final String model;
    private final int embedDim;
    private final int numHeads;
    private final int threads;
    private final Map<String, OnnxTensor> weights = new HashMap<>();

    /**
     * @param w       the layer's weights (PyTorch's layout, self-attention: kdim = vdim = E)
     * @param threads ONNX Runtime's intra-op threads
     * @throws IllegalArgumentException when no bundled model has {@code w}'s head count
     */
    public OrtLayer(MultiHeadAttentionWeights w, int threads) {
        String why = unsupported(w.numHeads());
        if (why != null) {
            throw new IllegalArgumentException(why);
        }
        if (w.kdim() != w.embedDim() || w.vdim() != w.embedDim()) {
            throw new IllegalArgumentException("the ONNX layer is self-attention: kdim and vdim must be embed_dim "
                + w.embedDim() + ", got " + w.kdim() + ", " + w.vdim());
        }
        this.embedDim = w.embedDim();
        this.numHeads = w.numHeads();
        this.threads = threads;
        this.model = "mha_layer_h" + numHeads + ".onnx";
        int e = embedDim;
        float[] in = new float[3 * e * e];
        transposeInto(w.qWeight(), e, in, 3 * e, 0);
        transposeInto(w.kWeight(), e, in, 3 * e, e);
        transposeInto(w.vWeight(), e, in, 3 * e, 2 * e);
        float[] bias = new float[3 * e];
        copyBias(w.qBias(), bias, 0);
        copyBias(w.kBias(), bias, e);
        copyBias(w.vBias(), bias, 2 * e);
        float[] out = new float[e * e];
        transposeInto(w.outWeight(), e, out, e, 0);
        float[] outBias = new float[e];
        copyBias(w.outBias(), outBias, 0);
        try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
            options.setIntraOpNumThreads(threads);
            options.setInterOpNumThreads(1);
            options.addConfigEntry("session.intra_op.allow_spinning", "0");
            options.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
            session = env.createSession(OrtBenchmark.modelBytes(model), options);
            weights.put("w_in", tensor(in, new long[] {e, 3L * e}));
            weights.put("b_in", tensor(bias, new long[] {3L * e}));
            weights.put("w_out", tensor(out, new long[] {e, e}));
            weights.put("b_out", tensor(outBias, new long[] {e}));
        } catch (OrtException e2) {
            close();
            throw new IllegalStateException("ONNX Runtime could not load " + model + ": " + e2.getMessage(), e2);
        }
    }

    /** Why H heads cannot run on the bundled models, or null when they can. */
    public static String unsupported(int numHeads) {
        for (int h : MODEL_HEADS) {
            if (h == numHeads) {
                return null;
            }
        }
        return "--peer ort with --layer needs --num-heads 1, 2, 4, 8, 12 or 16 (the bundled mha_layer_h*.onnx), got "
            + numHeads;
    }

    /** The bundled model's file name. */
    String model() {
        return model;
    }

    int embedDim() {
        return embedDim;
    }

    int numHeads() {
        return numHeads;
    }

    int threads() {
        return threads;
    }

    /**
     * One run of the graph on B rows of L×E packed in {@code x} (B·L·E values, row after row).
     *
     * @return the B·L×E output, row after row
     */
    float[] forward(float[] x, int batch, int seqLen) {
        try (OnnxTensor input = tensor(x, new long[] {batch, seqLen, embedDim})) {
            return run(input, true);
        } catch (OrtException e) {
            throw new IllegalStateException("ONNX Runtime input: " + e.getMessage(), e);
        }
    }

    /** Runs the graph on {@code input}; with {@code read}, returns the output copied out, else null. */
    float[] run(OnnxTensor input, boolean read) {
        Map<String, OnnxTensor> feed = new HashMap<>(weights);
        feed.put("x", input);
        try (OrtSession.Result result = session.run(feed)) {
            if (!read) {
                return null;
            }
            FloatBuffer y = ((OnnxTensor) result.get(0)).getFloatBuffer();
            float[] out = new float[y.remaining()];
            y.get(out);
            return out;
        } catch (OrtException e) {
            throw new IllegalStateException("ONNX Runtime run failed: " + e.getMessage(), e);
        }
    }

    /** A tensor over a direct copy of {@code values} (ONNX Runtime reads direct buffers in place). */
    OnnxTensor tensor(float[] values, long[] shape) throws OrtException {
        FloatBuffer direct = ByteBuffer.allocateDirect(values.length * Float.BYTES).order(ByteOrder.nativeOrder())
            .asFloatBuffer();
        direct.put(values).rewind();
        return OnnxTensor.createTensor(env, direct, shape);
    }

    @Override
    public void close() {
        weights.values().forEach(OnnxTensor::close);
        if (session != null) {
            try {
                session.close();
            } catch (OrtException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** {@code dst[i·stride + offset + j] = w[j·e + i]}: the e×e matrix w transposed into columns offset… */
    private static void transposeInto(float[] w, int e, float[] dst, int stride, int offset) {
        for (int j = 0; j < e; j++) {
            for (int i = 0; i < e; i++) {
                dst[i * stride + offset + j] = w[j * e + i];
            }
        }
    }

    /** A missing bias (a layer without biases) adds zeros. */
    private static void copyBias(float[] b, float[] dst, int offset) {
        if (b != null) {
            System.arraycopy(b, 0, dst, offset, b.length);
        }
    }
}

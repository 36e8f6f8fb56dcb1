package io.sparkattention.examples.bench;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Times ONNX Runtime's attention on the same shapes as {@link KernelBenchmark}, in the same JVM:
 * {@code mha.onnx} (one {@code com.microsoft.MultiHeadAttention} node, ORT's CPU flash-attention
 * kernel) or {@code mha_causal.onnx} ({@code unidirectional = 1}), bundled under
 * {@code /peers/ort/}. Their inputs are {@code [B, n, 16·64]}: BH = 16·B (row, head) problems.
 * ORT's intra-op threads are the kernel's {@code --threads}; inter-op is 1; its threads do not
 * spin-wait between runs (see the constructor).
 */
public final class OrtBenchmark implements AutoCloseable {

    /** Heads per batch item and head dimension fixed by the bundled models. */
    public static final int MODEL_HEADS = 16;
    public static final int MODEL_HEAD_DIM = 64;

    private final OrtEnvironment env = OrtEnvironment.getEnvironment();
    private final OrtSession session;
    private final String model;
    private final boolean causal;
    private final int threads;

    public OrtBenchmark(boolean causal, int threads) {
        this.model = causal ? "mha_causal.onnx" : "mha.onnx";
        this.causal = causal;
        this.threads = threads;
        try (OrtSession.SessionOptions options = sessionOptions(threads)) {
            session = env.createSession(modelBytes(model), options);
        } catch (OrtException e) {
            throw new IllegalStateException("ONNX Runtime could not load " + model + ": " + e.getMessage(), e);
        }
    }

    /**
     * The session options of every ONNX Runtime contender: T intra-op threads, inter-op 1, all
     * graph optimisations, no spin-waiting. ORT's intra-op threads spin-wait for work after each
     * run by default; in a round-robin run they would keep spinning into the next contender's
     * repetition and slow it (1.3–2.2× on 2 cores), while ORT's own times on its one-op attention
     * models are the same without spinning (nothing to spin for).
     */
    static OrtSession.SessionOptions sessionOptions(int threads) throws OrtException {
        OrtSession.SessionOptions options = new OrtSession.SessionOptions();
        options.setIntraOpNumThreads(threads);
        options.setInterOpNumThreads(1);
        options.addConfigEntry("session.intra_op.allow_spinning", "0");
        options.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
        return options;
    }

    /**
     * Why {@code (headDim, batchHeads)} cannot run on the bundled models, or null when they can:
     * the models have 16 heads of 64, so BH must be a multiple of 16 (B = BH/16 batch items).
     */
    public static String unsupported(int headDim, int batchHeads) {
        if (headDim != MODEL_HEAD_DIM) {
            return "--peer ort needs --head-dim " + MODEL_HEAD_DIM + " (the ONNX models have " + MODEL_HEADS
                + " heads of " + MODEL_HEAD_DIM + "), got " + headDim;
        }
        if (batchHeads % MODEL_HEADS != 0) {
            return "--peer ort needs --batch-heads a multiple of " + MODEL_HEADS + " (B = BH/" + MODEL_HEADS
                + " batch items of " + MODEL_HEADS + " heads), got " + batchHeads;
        }
        return null;
    }

    /** Runs the model on a small problem for {@link KernelBenchmark#WARMUP_MILLIS} of wall and CPU time. */
    public void warmUp() {
        try (Inputs in = new Inputs(512, 1)) {
            KernelBenchmark.Deadline deadline = new KernelBenchmark.Deadline(KernelBenchmark.WARMUP_MILLIS);
            do {
                in.runOnce(false);
            } while (!deadline.passed());
        }
    }

    /** One configuration: {@code batchHeads / 16} batch items of n tokens, inputs allocated now. */
    public Trial trial(int seqLen, int batchHeads) {
        int batch = batchHeads / MODEL_HEADS;
        Inputs in = new Inputs(seqLen, batch);
        double flops = BenchResult.flops(seqLen, MODEL_HEAD_DIM, batchHeads, causal);
        return new Trial() {
            private boolean checked;

            @Override
            public void runOnce() {
                in.runOnce(!checked);  // the first run also checks the output is finite
                checked = true;
            }

            @Override
            public boolean shortRun() {
                return flops <= KernelBenchmark.UNTIMED_RUN_MAX_FLOPS;
            }

            @Override
            public BenchResult result(double[] wallMs, double[] cpuMs) {
                return new BenchResult("ort", seqLen, MODEL_HEAD_DIM, batchHeads, causal, threads, wallMs, flops,
                    "onnxruntime " + ortVersion())
                    .withCpuTimes(cpuMs, flops)
                    .with("model", model)
                    .with("ort_batch", batch)
                    .with("input_mb", Math.round(4.0 * seqLen * MODEL_HEAD_DIM * batchHeads * 4 / (1 << 20)));
            }

            @Override
            public void close() {
                in.close();
            }
        };
    }

    @Override
    public void close() {
        try {
            session.close();
        } catch (OrtException e) {
            throw new IllegalStateException(e);
        }
    }

    static String ortVersion() {
        String v = OrtEnvironment.class.getPackage().getImplementationVersion();
        return v == null ? "1.29.0" : v;
    }

    /** Random query, key and value tensors of [B, n, 1024] and one run of the session on them. */
    private final class Inputs implements AutoCloseable {
        private final List<OnnxTensor> tensors = new ArrayList<>();
        private final Map<String, OnnxTensor> feed = new LinkedHashMap<>();

        Inputs(int seqLen, int batch) {
            long[] shape = {batch, seqLen, (long) MODEL_HEADS * MODEL_HEAD_DIM};
            int size = Math.multiplyExact(Math.multiplyExact(batch, seqLen), MODEL_HEADS * MODEL_HEAD_DIM);
            SplittableRandom random = new SplittableRandom(seqLen);
            try {
                for (String name : session.getInputInfo().keySet()) {
                    float[] x = UniformInputs.uniform(size, random);
                    OnnxTensor t = OnnxTensor.createTensor(env, FloatBuffer.wrap(x), shape);
                    tensors.add(t);
                    feed.put(name, t);
                }
            } catch (OrtException e) {
                close();
                throw new IllegalStateException("ONNX Runtime input: " + e.getMessage(), e);
            }
        }

        /** One run; {@code check}: also copy the output out and check that it is finite (untimed runs). */
        void runOnce(boolean check) {
            try (OrtSession.Result result = session.run(feed)) {
                if (check) {
                    FloatBuffer out = ((OnnxTensor) result.get(0)).getFloatBuffer();
                    while (out.hasRemaining()) {
                        if (!Float.isFinite(out.get())) {
                            throw new IllegalStateException("ONNX Runtime produced a non-finite output");
                        }
                    }
                }
            } catch (OrtException e) {
                throw new IllegalStateException("ONNX Runtime run failed: " + e.getMessage(), e);
            }
        }

        @Override
        public void close() {
            tensors.forEach(OnnxTensor::close);
        }
    }

    /** A bundled model's bytes, from {@code /peers/ort/} on the class path. */
    static byte[] modelBytes(String name) {
        try (InputStream in = OrtBenchmark.class.getResourceAsStream("/peers/ort/" + name)) {
            if (in == null) {
                throw new IllegalStateException("model /peers/ort/" + name + " is not on the class path");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

package io.sparkattention.examples.bench.torch;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDManager;
import ai.djl.pytorch.jni.JniUtils;
import io.sparkattention.examples.bench.TorchClassifierTrainer;
import io.sparkattention.examples.bench.TorchLm;
import io.sparkattention.examples.bench.TorchLmTrainer;
import io.sparkattention.examples.bench.TorchRuntime;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@link TorchRuntime} on libtorch through DJL's PyTorch engine, started once (DJL reads its
 * intra-op thread count, {@code ai.djl.pytorch.num_threads}, when the engine starts), with its
 * BLAS calls bound to its own MKL as it starts ({@link BlasBinding}). Loaded by the command line's
 * {@code TorchPeers} through {@link java.util.ServiceLoader}.
 */
public final class DjlTorchRuntime implements TorchRuntime {

    private final Engine engine;
    private final int threads;
    private final String blas;

    /** Starts DJL's PyTorch engine (unpacking libtorch into DJL's cache on the first start). */
    public DjlTorchRuntime() {
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        // DJL looks its engines and libtorch's native jar up through the context class loader.
        thread.setContextClassLoader(DjlTorchRuntime.class.getClassLoader());
        try {
            this.engine = Engine.getEngine("PyTorch");
            try (NDManager manager = engine.newBaseManager()) {
                this.blas = BlasBinding.bind(manager);
            }
        } finally {
            thread.setContextClassLoader(previous);
        }
        String given = System.getProperty("ai.djl.pytorch.num_threads");
        this.threads = given == null ? Runtime.getRuntime().availableProcessors() : Integer.parseInt(given.trim());
    }

    @Override
    public String version() {
        return "pytorch " + engine.getVersion() + " (djl " + Engine.getDjlVersion() + ")";
    }

    @Override
    public int threads() {
        return threads;
    }

    @Override
    public Map<String, Object> settings() {
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("torch_intra_op_threads", JniUtils.getNumThreads());
        settings.put("torch_inter_op_threads", JniUtils.getNumInteropThreads());
        settings.put("torch_blas", blas);
        for (String variable : TorchRuntime.ENVIRONMENT) {
            String value = System.getenv(variable);
            if (value != null) {
                settings.put(variable, value);
            }
        }
        return settings;
    }

    @Override
    public Encoder encoder(BertTensors weights) {
        return new DjlEncoder(engine.newBaseManager(), weights);
    }

    @Override
    public FineTuner fineTuner(BertTensors weights, FineTuneSpec spec) {
        return new DjlFineTuner(engine, weights, spec, ai.djl.ndarray.types.DataType.FLOAT32);
    }

    @Override
    public TorchLm lm(TorchLm.Weights weights) {
        return new DjlLm(engine.newBaseManager(), weights);
    }

    @Override
    public TorchLmTrainer lmTrainer(TorchLm.Weights weights, TorchLmTrainer.Spec spec) {
        return new DjlLmTrainer(engine, weights, spec);
    }

    @Override
    public TorchClassifierTrainer classifierTrainer(Map<String, float[]> initial, TorchClassifierTrainer.Spec spec) {
        return new DjlAttentionClassifierTrainer(engine, initial, spec);
    }

    /** A fresh manager of this engine (for tests). */
    NDManager newManager() {
        return engine.newBaseManager();
    }
}

package io.sparkattention.examples.bench.torch;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.types.DataType;
import io.sparkattention.examples.bench.TorchRuntime;

/**
 * The encoder benchmark's PyTorch contender: {@link DjlBert} in float32 without gradients, on
 * padded batches whose inputs are made once. Each run's temporaries are freed when it ends.
 */
final class DjlEncoder implements TorchRuntime.Encoder {

    private final NDManager manager;
    private final DjlBert bert;

    DjlEncoder(NDManager manager, TorchRuntime.BertTensors weights) {
        this.manager = manager;
        this.bert = new DjlBert(weights, DataType.FLOAT32, manager.newSubManager());
    }

    @Override
    public TorchRuntime.Batch batch(int[][] ids) {
        NDManager inputs = manager.newSubManager();
        NDArray[] padded = DjlBert.padded(inputs, ids, DataType.FLOAT32);
        int longest = (int) padded[0].getShape().get(1);
        return new TorchRuntime.Batch() {
            @Override
            public int longest() {
                return longest;
            }

            @Override
            public float[] run() {
                try (NDScope scope = new NDScope()) {
                    scope.suppressNotUsedWarning();
                    return bert.forward(padded[0], padded[1], 0, false).toFloatArray();
                }
            }

            @Override
            public void close() {
                inputs.close();
            }
        };
    }

    @Override
    public void close() {
        manager.close();
    }
}

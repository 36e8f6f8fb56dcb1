package io.sparkattention.nn;

import java.io.Serializable;
import java.util.List;

/**
 * What a model that learns supplies to the training engine ({@code ml.training}): its trainable
 * parameters as one flat float32 vector of named tensors, and an evaluator of its loss and
 * gradient at a point of that vector. The engine owns everything else (sampling, the step job,
 * fixed-order sums, optimiser, schedule, clipping, stopping, summary, model I/O). Spark-free;
 * serialisable so that one instance ships to the executors.
 *
 * @param <R> the network's training row (ids or features, label, weight, key)
 */
public interface TrainableNetwork<R> extends Serializable {

    /**
     * The trainable tensors in flat-vector order, without gaps: {@link ParameterTensor#decayed()}
     * is the AdamW group, {@link ParameterTensor#name()} the PyTorch state_dict name.
     */
    List<ParameterTensor> parameters();

    /** The flat vector's length: the sum of {@link #parameters()}' sizes. */
    int parameterCount();

    /**
     * The tensors whose gradient a step touches by rows (embedding tables), as indices into
     * {@link #parameters()}: the engine carries their gradients as the rows touched, not the whole
     * table. Empty when every gradient is dense.
     */
    default int[] rowSparseTensors() {
        return new int[0];
    }

    /**
     * The rows the engine hands to one {@link TrainingEvaluator#add} before it flushes the pending
     * sums into a task's float64 {@link GradientSums}, counted from a partition's first sampled row.
     * A network whose pending sums are float32 trades the flush's cost (a read and write of every
     * parameter it touches) against a float32 sum over that many rows; 1 flushes each row on its own.
     */
    default int rowsPerRun() {
        return DEFAULT_ROWS_PER_RUN;
    }

    /**
     * {@link #rowsPerRun()}'s default: a fine-tuning step flushed per row spent a tenth of its time
     * in the flush (JFR, {@code bench --fine-tune}); per 32 rows it costs a few percent, and a
     * float32 sum of 32 rows stays within about 32 ulp.
     */
    int DEFAULT_ROWS_PER_RUN = 32;

    /**
     * The network evaluated at {@code theta}: one per thread and step (not thread-safe). A training
     * binding applies dropout keyed by (seed, step, row key, site, element); an evaluation binding
     * applies none and ignores seed and step.
     *
     * @throws IllegalArgumentException when theta's length is not {@link #parameterCount()}
     */
    TrainingEvaluator<R> bind(float[] theta, boolean training, long seed, long step);
}

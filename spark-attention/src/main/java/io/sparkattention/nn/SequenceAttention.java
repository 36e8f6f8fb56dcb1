package io.sparkattention.nn;

import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.RowMask;
import io.sparkattention.kernel.Workspace;

import java.io.Serializable;

/**
 * What an attention stage computes for one sequence, cut where execution strategies may
 * distribute the work: {@link #prepare} (input projections, head split), the kernel over heads
 * (or over key blocks), and {@link #finish} (output projection).
 *
 * <p>Implementations are immutable and serializable: they travel to executors (large ones by
 * broadcast).
 */
public interface SequenceAttention extends Serializable {

    /** The kernel (its spec: scale, causal, window, blocks). */
    FlashAttention kernel();

    /** Values per query row of the stage's output. */
    int outputWidth();

    /**
     * Projects one sequence's inputs into kernel layout.
     *
     * @param query L×queryWidth row-major
     * @param key   S×keyWidth
     * @param value S×valueWidth
     * @param mask  padding, boolean mask, bias
     * @throws IllegalArgumentException naming the input whose width does not fit
     */
    PreparedSequence prepare(float[] query, int queryLength, float[] key, float[] value, int keyLength, RowMask mask);

    /** Turns the kernel's L×(H·dv) output into the stage's L×{@link #outputWidth()} output. */
    float[] finish(float[] attended, int queryLength);

    /** prepare → kernel over all heads → finish, with weights when asked. */
    default Attention.Output forward(float[] query, int queryLength, float[] key, float[] value, int keyLength,
                                     RowMask mask, AttentionWeightsMode mode, Workspace ws) {
        PreparedSequence p = prepare(query, queryLength, key, value, keyLength, mask);
        Attention.Output attended = Attention.compute(kernel(), p.shape(), p.q(), p.k(), p.v(), p.mask(), mode, ws,
            new float[p.shape().outputSize()]);
        return new Attention.Output(finish(attended.values(), queryLength), attended.weights());
    }
}

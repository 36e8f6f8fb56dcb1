package io.sparkattention.exec;

import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.Workspace;

import java.io.Serializable;

/**
 * A piece of one row's attention that a task computes on its own: it carries every input it
 * needs (its slices of Q, K, V and of the mask) and nothing else, so any executor can compute it,
 * as often as Spark asks, with the same result.
 */
interface AttentionUnit extends Serializable {

    /** Partition hint of the result's key (see {@link UnitKey#slot()}). */
    int resultSlot();

    /**
     * Computes the unit.
     *
     * @param kernel  the kernel of the job's spec
     * @param weights whether the unit also computes its attention weights
     * @param ws      the task's scratch
     */
    UnitResult compute(FlashAttention kernel, boolean weights, Workspace ws);
}

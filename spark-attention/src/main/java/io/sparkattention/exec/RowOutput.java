package io.sparkattention.exec;

import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.nn.AttentionWeightsMode;

/**
 * One row's attended output being put together from its units' results: the kernel-layout
 * L×(H·dv) values and, when requested, the weights (L×S averaged or H×L×S per head). Values a
 * unit never wrote stay 0, which is the output of query rows that see no key.
 */
final class RowOutput {

    private final AttentionShape shape;
    private final AttentionWeightsMode mode;
    private final float[] values;
    private final float[] weights;

    RowOutput(AttentionShape shape, AttentionWeightsMode mode) {
        this.shape = shape;
        this.mode = mode;
        this.values = new float[shape.outputSize()];
        long size = mode.size(shape.numHeads(), shape.queryLength(), shape.keyLength());
        if (size > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("attention weights of " + shape + " (" + mode + ") do not fit one array");
        }
        this.weights = mode == AttentionWeightsMode.NONE ? null : new float[(int) size];
    }

    /** L×(H·dv), row-major. */
    float[] values() {
        return values;
    }

    /** The weights, or null when none were requested. */
    float[] weights() {
        return weights;
    }

    /** Copies {@code block} (rows×dv) into head {@code head}'s columns, query rows {@code [firstRow, firstRow+rows)}. */
    void putHeadRows(int head, int firstRow, int rows, float[] block) {
        int dv = shape.valueDim(), ld = shape.numHeads() * dv;
        for (int r = 0; r < rows; r++) {
            System.arraycopy(block, r * dv, values, (firstRow + r) * ld + head * dv, dv);
        }
    }

    /**
     * Adds head {@code head}'s L×S weights: into its plane (per head), or scaled by 1/H into the
     * average. Heads arrive in ascending order, so the average is summed in the same order as
     * the kernel sums it for a whole row.
     */
    void addHeadWeights(int head, float[] headWeights) {
        if (mode == AttentionWeightsMode.PER_HEAD) {
            System.arraycopy(headWeights, 0, weights, head * headWeights.length, headWeights.length);
        } else if (mode == AttentionWeightsMode.AVERAGED) {
            float factor = 1f / shape.numHeads();
            for (int i = 0; i < headWeights.length; i++) {
                weights[i] += factor * headWeights[i];
            }
        }
    }
}

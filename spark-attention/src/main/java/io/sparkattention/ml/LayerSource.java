package io.sparkattention.ml;

import io.sparkattention.nn.SequenceAttention;

import java.io.Serializable;

/**
 * Where a stage's per-sequence computation comes from on an executor: built from the row's
 * widths (scaled dot-product attention, no weights) or fetched from a broadcast (a model's weights,
 * shipped once per executor).
 */
interface LayerSource extends Serializable {

    /**
     * The computation for a row whose query, key and value rows have these widths.
     *
     * @throws io.sparkattention.rows.RowDataException when the widths do not fit the layer
     */
    SequenceAttention layer(int queryWidth, int keyWidth, int valueWidth);

    /** Output projection of the kernel's L×(H·dv) output (identity when there is none). */
    float[] finish(float[] attended, int queryLength);
}

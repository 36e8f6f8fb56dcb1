package io.sparkattention.ml;

import io.sparkattention.rows.RowDataException;
import io.sparkattention.nn.MultiHeadAttentionLayer;
import io.sparkattention.nn.MultiHeadAttentionWeights;
import io.sparkattention.nn.SequenceAttention;
import org.apache.spark.broadcast.Broadcast;

/**
 * A model's layer on an executor: the layer comes from a broadcast, so its weights are shipped
 * once per executor (and cached there by the block manager), never with each task or row, and
 * the projection weights it prepares on first use ({@link MultiHeadAttentionLayer}) are prepared
 * once per executor too: every task there shares the broadcast's one copy. Each row's widths are
 * checked against the weights, naming the column.
 */
final class BroadcastLayerSource implements LayerSource {

    private static final long serialVersionUID = 1L;

    private final Broadcast<MultiHeadAttentionLayer> layer;
    private final String queryColumn;
    private final String keyColumn;
    private final String valueColumn;
    /**
     * @param layer the layer, broadcast (thread-safe: it holds only its weights, kernel and
     *              prepared projections; scratch comes from the caller)
     */
    BroadcastLayerSource(Broadcast<MultiHeadAttentionLayer> layer, String queryColumn, String keyColumn,
                  String valueColumn) {
        this.layer = layer;
        this.queryColumn = queryColumn;
        this.keyColumn = keyColumn;
        this.valueColumn = valueColumn;
    }

    /** Width 0 means the matrix has no rows (nothing to check); the layer checks the rest. */
    @Override
    public SequenceAttention layer(int queryWidth, int keyWidth, int valueWidth) {
        MultiHeadAttentionLayer l = layer.value();
        MultiHeadAttentionWeights w = l.weights();
        check(queryColumn, queryWidth, w.embedDim(), "embed_dim");
        check(keyColumn, keyWidth, w.kdim(), "kdim");
        check(valueColumn, valueWidth, w.vdim(), "vdim");
        return l;
    }

    private static void check(String column, int width, int expected, String dimension) {
        if (width != 0 && width != expected) {
            throw new RowDataException("column " + column + " row 0 has " + width + " values, expected " + dimension
                + " " + expected);
        }
    }

    @Override
    public float[] finish(float[] attended, int queryLength) {
        return layer.value().finish(attended, queryLength);
    }
}

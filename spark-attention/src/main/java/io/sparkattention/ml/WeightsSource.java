package io.sparkattention.ml;

import io.sparkattention.exec.RowDataException;
import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.nn.MultiHeadAttentionLayer;
import io.sparkattention.nn.MultiHeadAttentionWeights;
import io.sparkattention.nn.SequenceAttention;
import org.apache.spark.broadcast.Broadcast;

/**
 * A model's layer on an executor: the weights come from a broadcast, so they are shipped once
 * per executor (and cached there by the block manager), never with each task or row. Each row's
 * widths are checked against the weights, naming the column.
 */
final class WeightsSource implements LayerSource {

    private static final long serialVersionUID = 1L;

    private final Broadcast<MultiHeadAttentionWeights> weights;
    private final AttentionSpec spec;
    private final String queryColumn;
    private final String keyColumn;
    private final String valueColumn;
    /** Built on first use in each task's copy; wraps the executor's one copy of the weights. */
    private transient MultiHeadAttentionLayer layer;

    WeightsSource(Broadcast<MultiHeadAttentionWeights> weights, AttentionSpec spec, String queryColumn,
                  String keyColumn, String valueColumn) {
        this.weights = weights;
        this.spec = spec;
        this.queryColumn = queryColumn;
        this.keyColumn = keyColumn;
        this.valueColumn = valueColumn;
    }

    private MultiHeadAttentionLayer layer() {
        MultiHeadAttentionLayer l = layer;
        if (l == null) {
            l = new MultiHeadAttentionLayer(weights.value(), new FlashAttention(spec));
            layer = l;
        }
        return l;
    }

    /** Width 0 means the matrix has no rows (nothing to check); the layer checks the rest. */
    @Override
    public SequenceAttention layer(int queryWidth, int keyWidth, int valueWidth) {
        MultiHeadAttentionLayer l = layer();
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
        return layer().finish(attended, queryLength);
    }
}

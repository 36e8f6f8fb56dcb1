package io.sparkattention.ml.feature;

import io.sparkattention.ml.Shipped;
import io.sparkattention.exec.RowFunction;
import io.sparkattention.bert.BertConfig;
import io.sparkattention.bert.BertEncoder;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;

/**
 * The encoder stage on a stream, one row at a time: the row's ids in, its outputs out as the
 * struct {@link EncoderRows#resultType}. A null id array gives a null struct, or an error naming
 * the column; a text's outputs are the bits {@link EncodePartition} gives it in a group.
 */
final class EncodeFunction implements RowFunction {

    private static final long serialVersionUID = 1L;

    private final Broadcast<Shipped<BertEncoder>> encoder;
    private final EncoderRows rows;

    EncodeFunction(Broadcast<Shipped<BertEncoder>> encoder, EncoderRows rows) {
        this.encoder = encoder;
        this.rows = rows;
    }

    @Override
    public Object apply(Object[] inputs) {
        BertEncoder model = encoder.value().get();
        BertConfig config = model.config();
        int[] ids = rows.ids(inputs[0], config);
        if (ids == null) {
            return null;
        }
        float[] attention = null;
        float[] states;
        int layer = rows.outputs().attentionLayer();
        if (layer >= 0) {
            attention = new float[Math.multiplyExact(config.heads(), Math.multiplyExact(ids.length, ids.length))];
            states = model.forward(ids, layer, attention);
        } else {
            states = model.forward(ids);
        }
        return new GenericInternalRow(rows.encode(states, ids.length, config, attention));
    }
}

package io.sparkattention.ml.feature;

import io.sparkattention.ml.Shipped;
import io.sparkattention.bert.BertConfig;
import io.sparkattention.bert.BertEncoder;
import org.apache.spark.api.java.function.Function2;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.DataType;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The encoder stage on one partition ({@link BatchedRows}): its rows gathered into
 * {@link EncoderBatches}, each group encoded by one stacked forward, every row returned in its
 * input order with the requested outputs appended; a row whose ids are null and kept gets null
 * outputs. With the attention output each row is encoded alone (the probabilities are one
 * sequence's).
 */
final class EncodePartition implements Function2<Integer, Iterator<InternalRow>, Iterator<InternalRow>> {

    private static final long serialVersionUID = 1L;

    private final Broadcast<Shipped<BertEncoder>> encoder;
    private final EncoderRows rows;
    private final EncoderBatches batches;
    private final int idsIndex;
    private final int rowIdIndex;
    private final DataType rowIdType;

    /**
     * @param idsIndex   the ids column's position in the input rows
     * @param rowIdIndex the row id column's position, or -1 to name rows by position
     * @param rowIdType  its type (unused without one)
     */
    EncodePartition(Broadcast<Shipped<BertEncoder>> encoder, EncoderRows rows, EncoderBatches batches, int idsIndex,
                  int rowIdIndex, DataType rowIdType) {
        this.encoder = encoder;
        this.rows = rows;
        this.batches = batches;
        this.idsIndex = idsIndex;
        this.rowIdIndex = rowIdIndex;
        this.rowIdType = rowIdType;
    }

    @Override
    public Iterator<InternalRow> call(Integer partition, Iterator<InternalRow> input) {
        BertEncoder model = encoder.value().get();
        BertConfig config = model.config();
        BatchedRows.Decoder decoder = row -> rows.ids(row.isNullAt(idsIndex) ? null : row.getArray(idsIndex), config);
        return new BatchedRows(batches, partition, input, decoder, ids -> encode(model, ids), width(), rowIdIndex,
            rowIdType);
    }

    /** The outputs of a group's rows: one stacked forward, or each row alone with the attention output. */
    private Object[][] encode(BertEncoder model, int[][] ids) {
        BertConfig config = model.config();
        Object[][] out = new Object[ids.length][];
        if (rows.outputs().attention()) {
            for (int i = 0; i < ids.length; i++) {
                float[] probs = new float[config.heads() * ids[i].length * ids[i].length];
                float[] alone = model.forward(ids[i], rows.outputs().attentionLayer(), probs);
                out[i] = added(rows.encode(alone, ids[i].length, config, probs));
            }
            return out;
        }
        float[][] states = EncoderBatches.encode(model, ids);
        for (int i = 0; i < ids.length; i++) {
            out[i] = added(rows.encode(states[i], ids[i].length, config, null));
        }
        return out;
    }

    /** How many outputs are appended. */
    private int width() {
        EncoderRows.Outputs o = rows.outputs();
        return (o.embedding() ? 1 : 0) + (o.states() ? 1 : 0) + (o.attention() ? 1 : 0);
    }

    /** The outputs asked for, in column order: embedding, states, attention. */
    private Object[] added(Object[] all) {
        EncoderRows.Outputs o = rows.outputs();
        List<Object> out = new ArrayList<>(3);
        if (o.embedding()) {
            out.add(all[0]);
        }
        if (o.states()) {
            out.add(all[1]);
        }
        if (o.attention()) {
            out.add(all[2]);
        }
        return out.toArray();
    }
}

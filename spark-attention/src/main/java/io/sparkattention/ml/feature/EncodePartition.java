package io.sparkattention.ml.feature;

import io.sparkattention.bert.BertConfig;
import io.sparkattention.bert.BertEncoder;
import io.sparkattention.rows.RowDataException;
import org.apache.spark.api.java.function.Function2;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.JoinedRow;
import org.apache.spark.sql.types.DataType;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * The encoder stage on one partition: its rows gathered into {@link EncoderBatches}, each group
 * encoded by one stacked forward, every row returned in its input order with the requested
 * outputs appended. A row whose ids are null and kept passes through with null outputs: it counts
 * toward its group's {@code batchRows} (a group holds its rows until they return) but takes no
 * place in the forward; with the attention output each row is encoded alone (the probabilities
 * are one sequence's). Errors name the row as the stages' row functions do: by its
 * {@code rowIdCol} value, else by its position in its partition.
 */
final class EncodePartition implements Function2<Integer, Iterator<InternalRow>, Iterator<InternalRow>> {

    private static final long serialVersionUID = 1L;

    private final Broadcast<ShippedEncoder> encoder;
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
    EncodePartition(Broadcast<ShippedEncoder> encoder, EncoderRows rows, EncoderBatches batches, int idsIndex,
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
        return new Grouped(partition, input, encoder.value().get());
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

    private final class Grouped implements Iterator<InternalRow> {
        private final int partition;
        private final Iterator<InternalRow> input;
        private final BertEncoder model;
        private final BertConfig config;
        private final List<InternalRow> group = new ArrayList<>();
        private final List<int[]> groupIds = new ArrayList<>();
        private InternalRow[] ready = new InternalRow[0];
        private int next;
        /** The row read past the last group's end, and its ids (null when kept null): the next group's first row. */
        private InternalRow carried;
        private int[] carriedIds;
        /** Rows read from this partition: the position of the next one. */
        private long position;

        Grouped(int partition, Iterator<InternalRow> input, BertEncoder model) {
            this.partition = partition;
            this.input = input;
            this.model = model;
            this.config = model.config();
        }

        @Override
        public boolean hasNext() {
            if (next < ready.length) {
                return true;
            }
            if (carried == null && !input.hasNext()) {
                return false;
            }
            fill();
            return next < ready.length;
        }

        @Override
        public InternalRow next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            InternalRow row = ready[next];
            ready[next++] = null;
            return row;
        }

        /** Reads the next group (rows up to the first that does not fit) and encodes it. */
        private void fill() {
            group.clear();
            groupIds.clear();
            long tokens = 0;
            if (carried != null) {
                group.add(carried);
                groupIds.add(carriedIds);
                tokens = carriedIds == null ? 0 : carriedIds.length;
                carried = null;
                carriedIds = null;
            }
            while (input.hasNext()) {
                // A private copy: the upstream iterator reuses its row object.
                InternalRow row = input.next().copy();
                int[] ids = decode(row, position++);
                // Every row counts toward batchRows, a null one with no tokens.
                if (batches.closesBefore(group.size(), tokens, ids == null ? 0 : ids.length)) {
                    carried = row;
                    carriedIds = ids;
                    break;
                }
                group.add(row);
                groupIds.add(ids);
                if (ids != null) {
                    tokens += ids.length;
                }
            }
            ready = new InternalRow[group.size()];
            next = 0;
            float[][] states = encode();
            for (int i = 0, s = 0; i < ready.length; i++) {
                int[] ids = groupIds.get(i);
                Object[] out;
                if (ids == null) {
                    out = new Object[3];
                } else if (rows.outputs().attention()) {
                    float[] probs = new float[config.heads() * ids.length * ids.length];
                    float[] alone = model.forward(ids, rows.outputs().attentionLayer(), probs);
                    out = rows.encode(alone, ids.length, config, probs);
                } else {
                    out = rows.encode(states[s++], ids.length, config, null);
                }
                ready[i] = new JoinedRow(group.get(i), new GenericInternalRow(added(out)));
            }
        }

        /** The non-null rows' states in one stacked forward; none when each row is encoded alone. */
        private float[][] encode() {
            if (rows.outputs().attention()) {
                return null;
            }
            List<int[]> present = new ArrayList<>(groupIds.size());
            for (int[] ids : groupIds) {
                if (ids != null) {
                    present.add(ids);
                }
            }
            return EncoderBatches.encode(model, present.toArray(new int[0][]));
        }

        private int[] decode(InternalRow row, long at) {
            try {
                return rows.ids(row.isNullAt(idsIndex) ? null : row.getArray(idsIndex), config);
            } catch (RowDataException e) {
                throw e.at(describe(row, at));
            }
        }

        private String describe(InternalRow row, long at) {
            if (rowIdIndex >= 0) {
                return "row " + (row.isNullAt(rowIdIndex) ? "null" : row.get(rowIdIndex, rowIdType));
            }
            return partition == 0 ? "row " + at : "row " + at + " of partition " + partition;
        }
    }
}

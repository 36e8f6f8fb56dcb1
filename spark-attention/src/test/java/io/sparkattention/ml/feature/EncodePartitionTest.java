package io.sparkattention.ml.feature;

import io.sparkattention.ml.Shipped;
import io.sparkattention.bert.BertEncoder;
import io.sparkattention.nn.Pooling;
import io.sparkattention.rows.TokenIds;
import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.VectorUDT;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The encoder stage's groups on one partition: kept null rows count toward a group's rows. */
class EncodePartitionTest {

    private static final int BATCH_ROWS = 4;

    @Test
    @DisplayName("handleInvalid keep: a long run of null rows is read a group of batchRows at a time, in order, "
        + "with null outputs; the rows after it are encoded as alone")
    void nullRowsCountTowardTheRowBound() {
        BertEncoder encoder = RandomBert.encoder(1, 8, 2, 20, 5);
        JavaSparkContext sc = JavaSparkContext.fromSparkContext(SparkTestSession.get().sparkContext());
        Broadcast<Shipped<BertEncoder>> shipped = sc.broadcast(Shipped.of(encoder));
        try {
            EncoderRows rows = new EncoderRows(new TokenIds("input_ids", false, false, encoder.config().vocabSize()),
                new EncoderRows.Outputs(true, Pooling.MEAN, false, false, false, -1));
            EncodePartition encode = new EncodePartition(shipped, rows, new EncoderBatches(BATCH_ROWS, 2048), 0, -1,
                null);
            int nulls = 101;
            List<int[]> input = new ArrayList<>();
            for (int i = 0; i < nulls; i++) {
                input.add(null);
            }
            input.add(new int[] {1, 5, 7, 2});
            input.add(new int[] {3, 4});
            Counted counted = new Counted(input);
            Iterator<InternalRow> out = encode.call(0, counted);
            for (int i = 0; i < nulls; i++) {
                assertTrue(out.hasNext());
                InternalRow row = out.next();
                assertTrue(counted.read <= i + 1 + BATCH_ROWS, "row " + i + " returned after reading " + counted.read
                    + " rows: a group holds at most " + BATCH_ROWS + " (and the row read past its end)");
                assertTrue(row.isNullAt(0) && row.isNullAt(1), "a kept null row's ids and embedding are null");
            }
            for (int i = nulls; i < input.size(); i++) {
                InternalRow row = out.next();
                double[] got = ((Vector) new VectorUDT().deserialize(row.get(1, new VectorUDT()))).toArray();
                double[] alone = ((Vector) new VectorUDT().deserialize(rows.encode(EncoderBatches.encode(encoder,
                    new int[][] {input.get(i)})[0], input.get(i).length, encoder.config(), null)[0])).toArray();
                assertArrayEquals(alone, got, "row " + i);
            }
            assertFalse(out.hasNext());
            assertEquals(input.size(), counted.read);
        } finally {
            shipped.destroy();
        }
    }

    /** Rows of one {@code array<int>} column (null for a null entry), counting how many were read. */
    private static final class Counted implements Iterator<InternalRow> {
        private final List<int[]> ids;
        int read;

        Counted(List<int[]> ids) {
            this.ids = ids;
        }

        @Override
        public boolean hasNext() {
            return read < ids.size();
        }

        @Override
        public InternalRow next() {
            int[] row = ids.get(read++);
            return new GenericInternalRow(new Object[] {row == null ? null : new GenericArrayData(row)});
        }
    }
}

package io.sparkattention.exec;

import io.sparkattention.nn.PreparedSequence;
import io.sparkattention.rows.RowDataException;
import org.apache.spark.api.java.function.Function2;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import scala.Tuple2;

import java.util.Collections;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * The first stage of the head and sequence strategies, one call per input partition: for each
 * row, its {@link Carrier} (the row itself, keyed by its content) and then its units. The job's
 * {@code prepare} (decoding, checks, input projections) runs here, once per row.
 *
 * <p>A pure function of each row: the records a partition produces do not depend on the order
 * of its rows, so a re-run of the task after an executor loss produces the same records.
 */
final class RowSplitter implements Function2<Integer, Iterator<InternalRow>, Iterator<Tuple2<UnitKey, Object>>> {

    private static final long serialVersionUID = 1L;

    private final AttentionJob job;
    private final Splitter splitter;
    private final StructType schema;
    private final int[] inputOrdinals;
    private final DataType[] inputTypes;
    private final int rowIdOrdinal;

    /**
     * @param job      the job (its {@code prepare} runs here)
     * @param splitter the strategy's cut
     * @param schema   the input's schema
     */
    RowSplitter(AttentionJob job, Splitter splitter, StructType schema) {
        this.job = job;
        this.splitter = splitter;
        this.schema = schema;
        this.inputOrdinals = new int[job.inputColumns().size()];
        this.inputTypes = new DataType[inputOrdinals.length];
        for (int i = 0; i < inputOrdinals.length; i++) {
            inputOrdinals[i] = schema.fieldIndex(job.inputColumns().get(i));
            inputTypes[i] = schema.fields()[inputOrdinals[i]].dataType();
        }
        this.rowIdOrdinal = job.rowIdColumn() == null ? -1 : schema.fieldIndex(job.rowIdColumn());
    }

    @Override
    public Iterator<Tuple2<UnitKey, Object>> call(Integer partition, Iterator<InternalRow> rows) {
        return new Records(partition, rows);
    }

    /** Carrier, units, carrier, units... produced as the consumer asks for them. */
    private final class Records implements Iterator<Tuple2<UnitKey, Object>> {
        private final int partition;
        private final Iterator<InternalRow> rows;
        private UnsafeProjection toUnsafe;
        private Iterator<Tuple2<UnitKey, Object>> units = Collections.emptyIterator();
        private long position;

        Records(int partition, Iterator<InternalRow> rows) {
            this.partition = partition;
            this.rows = rows;
        }

        @Override
        public boolean hasNext() {
            return units.hasNext() || rows.hasNext();
        }

        @Override
        public Tuple2<UnitKey, Object> next() {
            if (units.hasNext()) {
                return units.next();
            }
            if (!rows.hasNext()) {
                throw new NoSuchElementException();
            }
            // A private copy: the upstream iterator reuses its row object.
            UnsafeRow row = unsafe(rows.next()).copy();
            long at = position++;
            RowKey key = RowKey.of(partition, row);
            PreparedSequence prepared = prepare(row, at);
            if (prepared != null) {
                units = splitter.units(key, prepared);
            }
            return new Tuple2<>(UnitKey.carrier(key), new Carrier(row, prepared == null ? null : prepared.shape()));
        }

        private UnsafeRow unsafe(InternalRow row) {
            if (row instanceof UnsafeRow) {
                return (UnsafeRow) row;
            }
            if (toUnsafe == null) {
                toUnsafe = UnsafeProjection.create(schema);
            }
            return toUnsafe.apply(row);
        }

        private PreparedSequence prepare(UnsafeRow row, long at) {
            Object[] values = new Object[inputOrdinals.length];
            for (int i = 0; i < values.length; i++) {
                values[i] = row.isNullAt(inputOrdinals[i]) ? null : row.get(inputOrdinals[i], inputTypes[i]);
            }
            try {
                return job.prepare(values);
            } catch (RowDataException e) {
                throw e.at(describe(row, at));
            }
        }

        /** How data errors name the row: by the row id column, else by position (as the batch strategy does). */
        private String describe(UnsafeRow row, long at) {
            if (rowIdOrdinal >= 0) {
                return "row " + (row.isNullAt(rowIdOrdinal) ? null
                    : row.get(rowIdOrdinal, schema.fields()[rowIdOrdinal].dataType()));
            }
            return partition == 0 ? "row " + at : "row " + at + " of partition " + partition;
        }
    }
}

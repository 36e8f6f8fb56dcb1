package io.sparkattention.ml.feature;

import io.sparkattention.rows.RowDataException;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.JoinedRow;
import org.apache.spark.sql.types.DataType;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;

/**
 * One partition's rows through a model that runs token-id rows in {@link EncoderBatches} groups:
 * consecutive rows are read (each copied: the upstream iterator reuses its row object) up to the
 * first that would close the group, the group's ids go through one call, and the rows come back
 * in their input order, each joined with the values the call gave it. A row without ids (null,
 * kept) counts toward its group's {@code batchRows}, takes no place in the call and gets nulls.
 * A bad row's error names it as the stages' row functions do: by its row id column's value, else
 * by its position in its partition.
 */
public final class BatchedRows implements Iterator<InternalRow> {

    /** A row's token ids, or null for a row kept without them; a bad row throws {@link RowDataException}. */
    @FunctionalInterface
    public interface Decoder {
        int[] ids(InternalRow row);
    }

    /** The appended values of a group's rows that have ids: one array of {@code width} values per row, in order. */
    @FunctionalInterface
    public interface Group {
        Object[][] apply(int[][] ids);
    }

    /**
     * A {@link Group} that also reads the rows themselves and their positions in the partition
     * (from 0): what a call keyed by a row's column or place needs (generation's sampling keys).
     */
    @FunctionalInterface
    public interface RowGroup {
        /**
         * @param ids       the ids of the group's rows that have ids, in order
         * @param rows      those rows (copies; not to be changed)
         * @param positions their positions in the partition
         */
        Object[][] apply(int[][] ids, InternalRow[] rows, long[] positions);
    }

    private final EncoderBatches batches;
    private final int partition;
    private final Iterator<InternalRow> input;
    private final Decoder decoder;
    private final RowGroup group;
    private final int width;
    private final int rowIdIndex;
    private final DataType rowIdType;
    private final List<InternalRow> rows = new ArrayList<>();
    private final List<int[]> rowIds = new ArrayList<>();
    private final List<Long> positions = new ArrayList<>();
    private InternalRow[] ready = new InternalRow[0];
    private int next;
    /** The row read past the last group's end, and its ids (null when kept null): the next group's first row. */
    private InternalRow carried;
    private int[] carriedIds;
    private long carriedPosition;
    /** Rows read from this partition: the position of the next one. */
    private long position;

    /**
     * @param batches    the groups' bounds
     * @param partition  the partition's index (named in errors)
     * @param input      its rows
     * @param decoder    a row's ids
     * @param group      the call on a group's ids
     * @param width      the values appended to each row
     * @param rowIdIndex the row id column's position, or -1 to name rows by position
     * @param rowIdType  its type (unused without one)
     */
    public BatchedRows(EncoderBatches batches, int partition, Iterator<InternalRow> input, Decoder decoder, Group group,
                       int width, int rowIdIndex, DataType rowIdType) {
        this(batches, partition, input, decoder, (RowGroup) (ids, rows, at) -> group.apply(ids), width, rowIdIndex,
            rowIdType);
        Objects.requireNonNull(group, "group");
    }

    /**
     * As {@link #BatchedRows(EncoderBatches, int, Iterator, Decoder, Group, int, int, DataType)},
     * with a call that also reads the rows and their positions.
     */
    public BatchedRows(EncoderBatches batches, int partition, Iterator<InternalRow> input, Decoder decoder,
                       RowGroup group, int width, int rowIdIndex, DataType rowIdType) {
        this.batches = Objects.requireNonNull(batches, "batches");
        this.partition = partition;
        this.input = Objects.requireNonNull(input, "input");
        this.decoder = Objects.requireNonNull(decoder, "decoder");
        this.group = Objects.requireNonNull(group, "group");
        this.width = width;
        this.rowIdIndex = rowIdIndex;
        this.rowIdType = rowIdType;
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

    /** Reads the next group (rows up to the first that does not fit) and runs it. */
    private void fill() {
        rows.clear();
        rowIds.clear();
        positions.clear();
        long tokens = 0;
        if (carried != null) {
            rows.add(carried);
            rowIds.add(carriedIds);
            positions.add(carriedPosition);
            tokens = carriedIds == null ? 0 : carriedIds.length;
            carried = null;
            carriedIds = null;
        }
        while (input.hasNext()) {
            InternalRow row = input.next().copy();
            long at = position++;
            int[] ids = decode(row, at);
            if (batches.closesBefore(rows.size(), tokens, ids == null ? 0 : ids.length)) {
                carried = row;
                carriedIds = ids;
                carriedPosition = at;
                break;
            }
            rows.add(row);
            rowIds.add(ids);
            positions.add(at);
            if (ids != null) {
                tokens += ids.length;
            }
        }
        List<int[]> present = new ArrayList<>(rowIds.size());
        List<InternalRow> presentRows = new ArrayList<>(rowIds.size());
        long[] at = new long[rowIds.size()];
        for (int i = 0; i < rowIds.size(); i++) {
            if (rowIds.get(i) != null) {
                at[present.size()] = positions.get(i);
                present.add(rowIds.get(i));
                presentRows.add(rows.get(i));
            }
        }
        Object[][] values = present.isEmpty() ? new Object[0][]
            : group.apply(present.toArray(new int[0][]), presentRows.toArray(new InternalRow[0]),
                Arrays.copyOf(at, present.size()));
        ready = new InternalRow[rows.size()];
        next = 0;
        for (int i = 0, v = 0; i < ready.length; i++) {
            Object[] appended = rowIds.get(i) == null ? new Object[width] : values[v++];
            ready[i] = new JoinedRow(rows.get(i), new GenericInternalRow(appended));
        }
    }

    private int[] decode(InternalRow row, long at) {
        try {
            return decoder.ids(row);
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

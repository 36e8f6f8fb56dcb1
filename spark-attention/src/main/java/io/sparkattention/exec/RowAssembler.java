package io.sparkattention.exec;

import io.sparkattention.kernel.AttentionShape;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.JoinedRow;
import scala.Tuple2;

import java.util.Iterator;

/**
 * The last stage of the head and sequence strategies. Its partition arrives sorted by
 * {@link UnitKey}: each row's carrier, then its results in (head, query block) order. The
 * results are written into the row's output (by position, so arrival order would not matter),
 * the job's {@code finish} (output projection) and {@code encode} run once per row, and the
 * output row is the carried input row followed by the job's output columns. Results whose key
 * repeats come from identical rows and are used once; the row is emitted once per carrier.
 */
final class RowAssembler implements FlatMapFunction<Iterator<Tuple2<UnitKey, Object>>, InternalRow> {

    private static final long serialVersionUID = 1L;

    private final AttentionJob job;

    RowAssembler(AttentionJob job) {
        this.job = job;
    }

    @Override
    public Iterator<InternalRow> call(Iterator<Tuple2<UnitKey, Object>> sorted) {
        return new Iterator<>() {
            private final SortedUnits units = new SortedUnits(sorted);
            private Carrier carrier;
            private InternalRow encoded;
            private int copies;

            @Override
            public boolean hasNext() {
                return copies > 0 || units.peek() != null;
            }

            @Override
            public InternalRow next() {
                if (copies == 0) {
                    assembleNextRow();
                }
                copies--;
                return new JoinedRow(carrier.row(), encoded);
            }

            private void assembleNextRow() {
                Tuple2<UnitKey, Object> first = units.take();
                if (!first._1().isCarrier()) {
                    throw new IllegalStateException("results of row " + first._1().row() + " arrived without the row");
                }
                RowKey row = first._1().row();
                carrier = (Carrier) first._2();
                copies = 1;
                for (Tuple2<UnitKey, Object> r = units.peek();
                     r != null && r._1().isCarrier() && r._1().row().equals(row); r = units.peek()) {
                    units.take();
                    copies++;
                }
                AttentionShape shape = carrier.shape();
                RowOutput output = shape == null ? null : new RowOutput(shape, job.weightsMode());
                UnitKey last = null;
                for (Tuple2<UnitKey, Object> r = units.peek(); r != null && r._1().row().equals(row); r = units.peek()) {
                    units.take();
                    if (output != null && !r._1().equals(last)) {
                        ((UnitResult) r._2()).addTo(output);
                    }
                    last = r._1();
                }
                encoded = output == null ? new GenericInternalRow(job.outputStruct().size())
                    : job.encode(job.finish(output.values(), shape.queryLength()), output.weights(), shape);
            }
        };
    }
}

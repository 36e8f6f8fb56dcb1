package io.sparkattention.exec;

import org.apache.spark.api.java.function.PairFlatMapFunction;
import scala.Tuple2;

import java.util.Iterator;

/**
 * The merge stage of the sequence strategy. Its partition arrives sorted by {@link UnitKey}, so
 * the partials of one (row, head, query block) come together in ascending key-block order; they
 * are folded left to right with the exact log-sum-exp combiner. The fold order is fixed by the
 * keys alone, so the merged block is bitwise the same whatever the partitioning or the task
 * attempt. A partial whose key repeats the previous one comes from an identical row (see
 * {@link RowKey}) and is dropped. Carriers pass through.
 */
final class PartialMerger implements PairFlatMapFunction<Iterator<Tuple2<UnitKey, Object>>, UnitKey, Object> {

    private static final long serialVersionUID = 1L;

    @Override
    public Iterator<Tuple2<UnitKey, Object>> call(Iterator<Tuple2<UnitKey, Object>> sorted) {
        return new Iterator<>() {
            private final SortedUnits units = new SortedUnits(sorted);

            @Override
            public boolean hasNext() {
                return units.peek() != null;
            }

            @Override
            public Tuple2<UnitKey, Object> next() {
                Tuple2<UnitKey, Object> first = units.take();
                if (!(first._2() instanceof BlockUnit.Partial)) {
                    return first;
                }
                UnitKey key = first._1();
                BlockUnit.Partial merged = (BlockUnit.Partial) first._2();
                UnitKey last = key;
                while (true) {
                    Tuple2<UnitKey, Object> r = units.peek();
                    if (r == null || !key.sameGroup(r._1())) {
                        break;
                    }
                    units.take();
                    if (!r._1().equals(last)) {
                        merged.merge((BlockUnit.Partial) r._2());
                        last = r._1();
                    }
                }
                return new Tuple2<>(key.with(0, 0), merged);
            }
        };
    }
}

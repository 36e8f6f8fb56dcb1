package io.sparkattention.exec;

import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.nn.PreparedSequence;
import scala.Tuple2;

import java.util.Collections;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * {@link Strategy#HEAD}: one unit per query head, slot = head (a row's heads land on consecutive
 * partitions). One query head per unit rather than one key/value group: it gives the most
 * parallelism for a row, at the price, under grouped-query attention, of sending a key/value
 * head once per query head that reads it (S×(d+dv) floats each, small next to the L×S work).
 */
final class HeadSplitter implements Splitter {

    private static final long serialVersionUID = 1L;

    @Override
    public Iterator<Tuple2<UnitKey, Object>> units(RowKey row, PreparedSequence p) {
        AttentionShape s = p.shape();
        if (s.queryLength() == 0 || s.keyLength() == 0) {
            return Collections.emptyIterator();
        }
        return new Iterator<>() {
            private int head;

            @Override
            public boolean hasNext() {
                return head < s.numHeads();
            }

            @Override
            public Tuple2<UnitKey, Object> next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                int h = head++;
                return new Tuple2<>(new UnitKey(row, h, 0, 0, h), HeadUnit.of(p, h));
            }
        };
    }
}

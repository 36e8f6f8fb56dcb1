package io.sparkattention.exec;

import scala.Tuple2;

import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * A partition of units sorted by {@link UnitKey}, read with one record of look-ahead: the merge
 * and assembly stages take records while the next one still belongs to the same group.
 */
final class SortedUnits {

    private final Iterator<Tuple2<UnitKey, Object>> sorted;
    private Tuple2<UnitKey, Object> pending;

    SortedUnits(Iterator<Tuple2<UnitKey, Object>> sorted) {
        this.sorted = sorted;
    }

    /** The next record without consuming it, or null at the end. */
    Tuple2<UnitKey, Object> peek() {
        if (pending == null && sorted.hasNext()) {
            pending = sorted.next();
        }
        return pending;
    }

    /** The next record, consumed. */
    Tuple2<UnitKey, Object> take() {
        Tuple2<UnitKey, Object> r = peek();
        if (r == null) {
            throw new NoSuchElementException();
        }
        pending = null;
        return r;
    }
}

package io.sparkattention.exec;

import java.io.Serializable;
import java.util.Comparator;

/**
 * The shuffle key of every record of the head and sequence strategies: the row, then the
 * position of a unit or result inside it (head, query block, key block). A row's carrier has
 * head −1, so in key order it comes before the row's results; a head's key blocks come in
 * ascending order, which is the fixed order partials are merged in.
 *
 * <p>{@code slot} is a partition hint set by whoever emits the record (a unit's ordinal inside its
 * row, or a result group's); it is derived from the row alone, so it is the same in every
 * attempt, and it takes no part in ordering or equality.
 */
final class UnitKey implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Head of a row's carrier record. */
    static final int CARRIER = -1;

    /** Row, then head, query block, key block. */
    static final Comparator<UnitKey> ORDER = new Order();

    private final RowKey row;
    private final int head;
    private final int queryBlock;
    private final int keyBlock;
    private final int slot;

    UnitKey(RowKey row, int head, int queryBlock, int keyBlock, int slot) {
        this.row = row;
        this.head = head;
        this.queryBlock = queryBlock;
        this.keyBlock = keyBlock;
        this.slot = slot;
    }

    /** The key of {@code row}'s carrier. */
    static UnitKey carrier(RowKey row) {
        return new UnitKey(row, CARRIER, 0, 0, 0);
    }

    RowKey row() {
        return row;
    }

    int head() {
        return head;
    }

    int queryBlock() {
        return queryBlock;
    }

    int keyBlock() {
        return keyBlock;
    }

    int slot() {
        return slot;
    }

    boolean isCarrier() {
        return head == CARRIER;
    }

    /** The same position with key block {@code k} and slot {@code s}. */
    UnitKey with(int k, int s) {
        return new UnitKey(row, head, queryBlock, k, s);
    }

    /** Same row, head and query block (one merge group of the sequence strategy). */
    boolean sameGroup(UnitKey o) {
        return o != null && head == o.head && queryBlock == o.queryBlock && row.equals(o.row);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof UnitKey)) {
            return false;
        }
        UnitKey k = (UnitKey) o;
        return head == k.head && queryBlock == k.queryBlock && keyBlock == k.keyBlock && row.equals(k.row);
    }

    @Override
    public int hashCode() {
        return ((row.hashCode() * 31 + head) * 31 + queryBlock) * 31 + keyBlock;
    }

    @Override
    public String toString() {
        return row + "/h" + head + "/q" + queryBlock + "/k" + keyBlock;
    }

    private static final class Order implements Comparator<UnitKey>, Serializable {
        private static final long serialVersionUID = 1L;

        @Override
        public int compare(UnitKey a, UnitKey b) {
            int c = a.row.compareTo(b.row);
            if (c == 0) {
                c = Integer.compare(a.head, b.head);
            }
            if (c == 0) {
                c = Integer.compare(a.queryBlock, b.queryBlock);
            }
            return c != 0 ? c : Integer.compare(a.keyBlock, b.keyBlock);
        }
    }
}

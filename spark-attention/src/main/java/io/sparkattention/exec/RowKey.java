package io.sparkattention.exec;

import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.catalyst.expressions.XXH64;

import java.io.Serializable;

/**
 * The identity of an input row across the shuffles of {@link Strategy#HEAD} and
 * {@link Strategy#SEQUENCE}: its input partition and a 128-bit hash of its bytes.
 *
 * <p>Why the content and not a position: a map task that is re-run after an executor loss may see
 * its partition's rows in another order (after an upstream shuffle the order is not fixed), so
 * a position-based key could give a row's re-computed units another row's key while earlier
 * results of the same key are already downstream. A content key is the same in every attempt,
 * which makes the split a pure function of each row, independent of row order. Rows with equal
 * bytes in one partition share a key; their units and results are equal too, so the
 * downstream stages keep one copy of each result and emit the row once per copy.
 */
final class RowKey implements Serializable, Comparable<RowKey> {

    private static final long serialVersionUID = 1L;

    /** Seeds of the two halves of the hash (any two distinct constants). */
    private static final long SEED_HI = 0x5bd1e9955bd1e995L;
    private static final long SEED_LO = 0x27d4eb2f165667c5L;

    private final int partition;
    private final long hashHi;
    private final long hashLo;

    RowKey(int partition, long hashHi, long hashLo) {
        this.partition = partition;
        this.hashHi = hashHi;
        this.hashLo = hashLo;
    }

    /** The key of {@code row}, read from input partition {@code partition}. */
    static RowKey of(int partition, UnsafeRow row) {
        Object base = row.getBaseObject();
        long offset = row.getBaseOffset();
        int size = row.getSizeInBytes();
        return new RowKey(partition, XXH64.hashUnsafeBytes(base, offset, size, SEED_HI),
            XXH64.hashUnsafeBytes(base, offset, size, SEED_LO));
    }

    /** The input partition: the output partition of the row. */
    int partition() {
        return partition;
    }

    /** A well-mixed int for spreading a row's units over partitions. */
    int spread() {
        return (int) (hashHi ^ (hashHi >>> 32));
    }

    @Override
    public int compareTo(RowKey o) {
        int c = Integer.compare(partition, o.partition);
        if (c == 0) {
            c = Long.compare(hashHi, o.hashHi);
        }
        return c != 0 ? c : Long.compare(hashLo, o.hashLo);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof RowKey)) {
            return false;
        }
        RowKey k = (RowKey) o;
        return partition == k.partition && hashHi == k.hashHi && hashLo == k.hashLo;
    }

    @Override
    public int hashCode() {
        return 31 * partition + spread();
    }

    @Override
    public String toString() {
        return String.format("%d:%016x%016x", partition, hashHi, hashLo);
    }
}

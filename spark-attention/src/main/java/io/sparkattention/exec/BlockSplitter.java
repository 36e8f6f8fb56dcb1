package io.sparkattention.exec;

import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.KeyBand;
import io.sparkattention.nn.PreparedSequence;
import scala.Tuple2;

import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * {@link Strategy#SEQUENCE}: one unit per (head, query block, key block) pair that the causal
 * mask, window and key padding leave some visible key in. Units are numbered in (head, query
 * block, key block) order; that ordinal is the unit's slot, so a row's units go round-robin
 * over the unit partitions. A unit's result goes to its merge group's slot
 * {@code head·queryBlocks + queryBlock}.
 */
final class BlockSplitter implements Splitter {

    private static final long serialVersionUID = 1L;

    private final AttentionSpec spec;
    private final int blockRows;

    BlockSplitter(AttentionSpec spec, int blockRows) {
        this.spec = spec;
        this.blockRows = blockRows;
    }

    @Override
    public Iterator<Tuple2<UnitKey, Object>> units(RowKey row, PreparedSequence p) {
        return new Units(row, p);
    }

    private final class Units implements Iterator<Tuple2<UnitKey, Object>> {
        private final RowKey row;
        private final PreparedSequence p;
        private final KeyBand visible;
        private final int heads, queryLength, keyLength, queryBlocks, keyBlocks;
        private int head, qb, kb = -1, ordinal;
        private boolean ready;

        Units(RowKey row, PreparedSequence p) {
            this.row = row;
            this.p = p;
            AttentionShape s = p.shape();
            this.heads = s.numHeads();
            this.queryLength = s.queryLength();
            this.keyLength = s.keyLength();
            this.queryBlocks = (queryLength + blockRows - 1) / blockRows;
            this.keyBlocks = (keyLength + blockRows - 1) / blockRows;
            this.visible = new KeyBand(spec, queryLength, keyLength, p.mask().validKeys());
        }

        /** Moves (head, qb, kb) to the next visible pair; false when there is none. */
        private boolean advance() {
            if (queryBlocks == 0 || keyBlocks == 0) {
                return false;
            }
            while (true) {
                if (++kb == keyBlocks) {
                    kb = 0;
                    if (++qb == queryBlocks) {
                        qb = 0;
                        if (++head == heads) {
                            return false;
                        }
                    }
                }
                if (visible.any(qb * blockRows, queryEnd(), kb * blockRows, keyEnd())) {
                    return true;
                }
            }
        }

        private int queryEnd() {
            return Math.min(queryLength, (qb + 1) * blockRows);
        }

        private int keyEnd() {
            return Math.min(keyLength, (kb + 1) * blockRows);
        }

        @Override
        public boolean hasNext() {
            if (!ready && head < heads) {
                ready = advance();
                if (!ready) {
                    head = heads;
                }
            }
            return ready;
        }

        @Override
        public Tuple2<UnitKey, Object> next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            ready = false;
            int q0 = qb * blockRows, k0 = kb * blockRows;
            int groupSlot = head * queryBlocks + qb;
            BlockUnit unit = BlockUnit.of(p, head, q0, queryEnd() - q0, k0, keyEnd() - k0, groupSlot);
            return new Tuple2<>(new UnitKey(row, head, qb, kb, ordinal++), unit);
        }
    }
}

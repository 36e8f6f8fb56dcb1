package io.sparkattention.exec;

import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.nn.PreparedSequence;
import scala.Tuple2;

import java.io.Serializable;
import java.util.Iterator;

/**
 * How a strategy cuts one prepared row into {@link AttentionUnit}s. The units are produced
 * lazily, one slice at a time, so a map task holds its row and one unit, not all of them.
 */
interface Splitter extends Serializable {

    /**
     * The units of one row, keyed. A row with no units (L = 0 or S = 0, or everything masked)
     * is all zeros, which the assembly produces without any unit.
     */
    Iterator<Tuple2<UnitKey, Object>> units(RowKey row, PreparedSequence prepared);

    /** The strategy's splitter. */
    static Splitter of(Strategy strategy, AttentionSpec spec, ExecutionSettings settings) {
        switch (strategy) {
            case HEAD:
                return new HeadSplitter();
            case SEQUENCE:
                return new BlockSplitter(spec, settings.sequenceBlockRows());
            default:
                throw new IllegalArgumentException("strategy " + strategy + " has no units");
        }
    }
}

package io.sparkattention.exec;

import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.Workspace;
import org.apache.spark.api.java.function.PairFlatMapFunction;
import scala.Tuple2;

import java.util.Iterator;

/**
 * The unit stage: computes each {@link AttentionUnit} of the partition, one at a time, and passes
 * carriers through. Needs only the kernel's spec, not the job.
 */
final class UnitRunner implements PairFlatMapFunction<Iterator<Tuple2<UnitKey, Object>>, UnitKey, Object> {

    private static final long serialVersionUID = 1L;

    private final AttentionSpec spec;
    private final boolean weights;

    /**
     * @param spec    the kernel's settings
     * @param weights whether units also compute their attention weights
     */
    UnitRunner(AttentionSpec spec, boolean weights) {
        this.spec = spec;
        this.weights = weights;
    }

    @Override
    public Iterator<Tuple2<UnitKey, Object>> call(Iterator<Tuple2<UnitKey, Object>> records) {
        FlashAttention kernel = new FlashAttention(spec);
        Workspace ws = new Workspace();
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return records.hasNext();
            }

            @Override
            public Tuple2<UnitKey, Object> next() {
                Tuple2<UnitKey, Object> record = records.next();
                if (!(record._2() instanceof AttentionUnit)) {
                    return record;
                }
                AttentionUnit unit = (AttentionUnit) record._2();
                UnitKey key = record._1();
                return new Tuple2<>(key.with(key.keyBlock(), unit.resultSlot()), unit.compute(kernel, weights, ws));
            }
        };
    }
}

package io.sparkattention.exec;

import org.apache.spark.api.java.function.Function3;
import scala.Tuple2;

import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * A leaf's result as its S shuffle records, each slice cut when the shuffle writer asks for it,
 * so a leaf task holds its result and one slice at a time. Lives within one task.
 */
final class LeafSlices<U> implements Iterator<Tuple2<Long, U>> {

    private final int leaf;
    private final U sum;
    private final int slices;
    private final Function3<U, Integer, Integer, U> cut;
    private int next;

    LeafSlices(int leaf, U sum, int slices, Function3<U, Integer, Integer, U> cut) {
        this.leaf = leaf;
        this.sum = sum;
        this.slices = slices;
        this.cut = cut;
    }

    @Override
    public boolean hasNext() {
        return next < slices;
    }

    @Override
    public Tuple2<Long, U> next() {
        if (next >= slices) {
            throw new NoSuchElementException("leaf " + leaf + " has " + slices + " slices");
        }
        int s = next++;
        try {
            return new Tuple2<>(GroupSlices.key(leaf, s, slices), cut.call(sum, s, slices));
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("cutting slice " + s + " of leaf " + leaf + " failed", e);
        }
    }
}

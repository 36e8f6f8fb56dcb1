package io.sparkattention.nn;

import java.lang.ref.SoftReference;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The JVM's spare sets of an evaluator's working buffers (its pending float32 gradient, its
 * activation records and scratch), handed from a released evaluator to the next one any thread
 * binds to the same network: a fine-tuned MiniLM's set is about 180 MB, which every training step
 * would otherwise allocate once per task and leave to the collector.
 *
 * <p>Why one pool for the JVM, not a slot per thread: Spark's executor threads come and go (a
 * cached pool, which starts a thread when none is idle and ends one after an idle minute), and a
 * set left in an idle thread's slot stayed there while the next task's new thread made its own.
 * A 2 GiB heap's dump at step 2 of the 256-partition fine-tune on {@code local[2]} held three
 * executor threads and four pending gradients of 90 MB (two in use, two left idle). From one pool
 * the sets in use and spare number at most the tasks that ran at once.
 *
 * <p>Why no two live evaluators share a set: {@link #take} removes it from the pool, so the set
 * has one holder until that holder {@link #give}s it back; an evaluator gives its set back only
 * when {@link TrainingEvaluator#release released}, after which it is not used. The pool keeps the
 * sets of one owner (the network they were sized for, compared by identity): a set given back for
 * another owner drops the others. Sets are held softly, so a heap short of memory may take them
 * back between steps. Whoever gives a set back leaves it as a new set would be: the pending
 * gradient zero, the rest overwritten before it is read. Thread-safe.
 *
 * @param <T> the set's type
 */
public final class SpareBuffers<T> {

    private final Deque<SoftReference<Held<T>>> pool = new ArrayDeque<>();

    /** A spare set for {@code owner}, now the caller's alone; null when there is none. */
    public synchronized T take(Object owner) {
        while (!pool.isEmpty()) {
            Held<T> h = pool.pop().get();
            if (h != null && h.owner == owner) {
                return h.buffers;
            }
        }
        return null;
    }

    /** Leaves {@code buffers}, made for {@code owner}, to the next {@link #take} for that owner. */
    public synchronized void give(Object owner, T buffers) {
        pool.removeIf(held -> {
            Held<T> h = held.get();
            return h == null || h.owner != owner;
        });
        pool.push(new SoftReference<>(new Held<>(owner, buffers)));
    }

    private record Held<T>(Object owner, T buffers) {
    }
}

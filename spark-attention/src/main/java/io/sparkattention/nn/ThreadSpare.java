package io.sparkattention.nn;

import java.lang.ref.SoftReference;

/**
 * A thread's spare set of an evaluator's working buffers (its pending float32 gradient, its
 * activation records and scratch), handed from a released evaluator to the next one its thread
 * binds to the same network: a fine-tuned MiniLM's set is about 180 MB, which every training step
 * would otherwise allocate once per task and leave to the collector.
 *
 * <p>Why no two live evaluators share a set: {@link #take} empties the thread's slot, so the set
 * has one holder until that holder {@link #give}s it back; an evaluator gives its set back only
 * when {@link TrainingEvaluator#release released}, after which it is not used. A set is kept for
 * one owner (the network it was sized for, compared by identity) and held softly, so a heap short
 * of memory may take it back between steps. Whoever gives a set back leaves it as a new set would
 * be: the pending gradient zero, the rest overwritten before it is read.
 *
 * @param <T> the set's type
 */
public final class ThreadSpare<T> {

    private final ThreadLocal<SoftReference<Held<T>>> slot = new ThreadLocal<>();

    /** This thread's spare set for {@code owner}, now the caller's alone; null when there is none. */
    public T take(Object owner) {
        SoftReference<Held<T>> held = slot.get();
        if (held == null) {
            return null;
        }
        slot.remove();
        Held<T> h = held.get();
        return h != null && h.owner == owner ? h.buffers : null;
    }

    /** Leaves {@code buffers}, made for {@code owner}, as this thread's spare set (replacing any). */
    public void give(Object owner, T buffers) {
        slot.set(new SoftReference<>(new Held<>(owner, buffers)));
    }

    private record Held<T>(Object owner, T buffers) {
    }
}

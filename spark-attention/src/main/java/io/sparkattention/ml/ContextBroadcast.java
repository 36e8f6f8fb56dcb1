package io.sparkattention.ml;

import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;

import java.lang.ref.WeakReference;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A stage's data shipped to executors once per SparkContext: made on the first {@link #get} with
 * a context and reused by later transforms and by every copy of the stage that shares this holder
 * (a pipeline's, a {@code CrossValidator}'s), made again for a new context. The holder keeps only a
 * weak reference to the context, so a stopped context and its broadcast go with it; Spark's
 * context cleaner removes the broadcast's blocks once the stage is no longer referenced.
 *
 * @param <T> the shipped value
 */
public final class ContextBroadcast<T> {

    private final Supplier<T> value;
    private WeakReference<SparkContext> context = new WeakReference<>(null);
    private Object key;
    private Broadcast<T> broadcast;

    /** @param value makes the value to ship, once per SparkContext */
    public ContextBroadcast(Supplier<T> value) {
        this.value = Objects.requireNonNull(value, "value");
    }

    /** The broadcast for {@code sc}, made on first use with that context. */
    public Broadcast<T> get(SparkContext sc) {
        return get(sc, null);
    }

    /**
     * The broadcast for {@code sc} and {@code key}: made again when either changes, for a value that
     * depends on the stage's params as well as its data (the key: those params, compared by
     * {@code equals}).
     */
    public synchronized Broadcast<T> get(SparkContext sc, Object key) {
        Objects.requireNonNull(sc, "sc");
        if (broadcast == null || context.get() != sc || sc.isStopped() || !Objects.equals(this.key, key)) {
            broadcast = JavaSparkContext.fromSparkContext(sc).broadcast(value.get());
            context = new WeakReference<>(sc);
            this.key = key;
        }
        return broadcast;
    }
}

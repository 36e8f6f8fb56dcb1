package io.sparkattention.exec;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoSerializable;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import org.apache.spark.SparkEnv;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A task's result that reaches the driver by reference when the task runs in the driver's JVM
 * (local mode, where the executor is the driver), and as its value's own serialization otherwise.
 *
 * <p>Spark serializes a task's result even in local mode: the value (Kryo), then the
 * {@code DirectTaskResult} around its bytes (Java serialization, another copy), then reads both
 * back on the driver. For a fine-tuned MiniLM's leaf slices (45 MB a leaf) that took about 40 ms
 * between a leaf task's end and its result's arrival on Zen 5, every step, for bytes that never
 * leave the process. Here the driver opens a box for one job ({@link #open()}), a task writes its
 * value into the box and a handle into the result, and the driver's read takes the value out;
 * closing the box ({@link #close}) after the job drops what a failed or duplicate attempt left in
 * it, and a task that writes after the close (an attempt outliving its job) writes its value.
 *
 * <p>Only values that no other code changes after the task returns them may be handed: the driver
 * gets the task's own objects (the leaf slices, allocated for the result), not copies.
 *
 * @param <T> the value's type
 */
final class HandedResult<T> implements Serializable, KryoSerializable {

    private static final long serialVersionUID = 1L;

    /** Written in place of a handle when the value follows. */
    private static final long VALUE_FOLLOWS = 0;
    /** The open boxes: their handed values by handle. */
    private static final Map<Long, Map<Long, Object>> BOXES = new ConcurrentHashMap<>();
    private static final AtomicLong IDS = new AtomicLong();
    /** The executor id of the driver's own executor in local mode (Spark's {@code SparkContext.DRIVER_IDENTIFIER}, not public). */
    private static final String DRIVER_EXECUTOR_ID = "driver";

    private long box;
    private transient T value;

    private HandedResult(long box, T value) {
        this.box = box;
        this.value = value;
    }

    /**
     * A box for one job's results (driver side).
     *
     * @return its id, for {@link #of} in the job's tasks and {@link #close} after the job
     */
    static long open() {
        long id = IDS.incrementAndGet();
        BOXES.put(id, new ConcurrentHashMap<>());
        return id;
    }

    /** Closes a box, dropping what no read took out of it. */
    static void close(long box) {
        BOXES.remove(box);
    }

    /** The handed values still in a box (0 once every result was read); −1 when the box is closed. */
    static int pending(long box) {
        Map<Long, Object> values = BOXES.get(box);
        return values == null ? -1 : values.size();
    }

    /** {@code value} as a task's result for box {@code box}. */
    static <T> HandedResult<T> of(long box, T value) {
        return new HandedResult<>(box, value);
    }

    /** @return the value, on the driver once the result is read */
    T value() {
        return value;
    }

    /** Whether this thread runs in the driver's JVM as its executor (local mode). */
    static boolean inDriverJvm() {
        SparkEnv env = SparkEnv.get();
        return env != null && DRIVER_EXECUTOR_ID.equals(env.executorId());
    }

    /** Puts the value in its box when this is the driver's JVM and the box is open: its handle, or {@link #VALUE_FOLLOWS}. */
    private long deposit() {
        Map<Long, Object> values = inDriverJvm() ? BOXES.get(box) : null;
        if (values == null) {
            return VALUE_FOLLOWS;
        }
        long handle = IDS.incrementAndGet();
        values.put(handle, value);
        return handle;
    }

    @SuppressWarnings("unchecked")
    private T take(long handle) {
        Map<Long, Object> values = BOXES.get(box);
        Object v = values == null ? null : values.remove(handle);
        if (v == null) {
            throw new IllegalStateException("task result " + handle + " of box " + box + " was handed by reference "
                + "within the driver's JVM and is not in its box: read twice, after its job ended, or in another process");
        }
        return (T) v;
    }

    @Override
    public void write(Kryo kryo, Output output) {
        long handle = deposit();
        output.writeLong(box);
        output.writeLong(handle);
        if (handle == VALUE_FOLLOWS) {
            kryo.writeClassAndObject(output, value);
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public void read(Kryo kryo, Input input) {
        box = input.readLong();
        long handle = input.readLong();
        value = handle == VALUE_FOLLOWS ? (T) kryo.readClassAndObject(input) : take(handle);
    }

    private void writeObject(ObjectOutputStream out) throws IOException {
        long handle = deposit();
        out.defaultWriteObject();
        out.writeLong(handle);
        if (handle == VALUE_FOLLOWS) {
            out.writeObject(value);
        }
    }

    @SuppressWarnings("unchecked")
    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
        in.defaultReadObject();
        long handle = in.readLong();
        value = handle == VALUE_FOLLOWS ? (T) in.readObject() : take(handle);
    }
}

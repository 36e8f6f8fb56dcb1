package io.sparkattention.ml.training;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoSerializable;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import io.sparkattention.nn.ArrayStreams;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The flat parameters (float32) at which a step's job runs, as its broadcast carries them: the
 * length, then the values as bytes through {@link ArrayStreams}, under Kryo and Java serialization
 * alike (Kryo's own float array writer goes value by value: 44 ms for a fine-tuned MiniLM's 90 MB
 * on Zen 5, the copies about 5). The driver's instance wraps the trainer's vector itself, not a
 * copy (see {@link Trainer}).
 *
 * <p>In local mode ({@link #inThisJvm}) every reader is a thread of the driver's JVM, and Spark's
 * own broadcast hands them the driver's instance from its memory store; the pieces it still
 * serializes for remote readers have none. There the instance writes a handle instead of the
 * values (a fine-tuned MiniLM's broadcast: 45–61 ms a step made, ~1 ms by handle, on Zen 5) and a
 * read (a block dropped to disk and read back) resolves it to the same array until
 * {@link #release()}. Any other master gets the values as bytes.
 */
final class StepParameters implements Serializable, KryoSerializable {

    private static final long serialVersionUID = 2L;

    /** The length written in place of the values' when a handle follows. */
    private static final int BY_HANDLE = -1;
    /** The vectors of this JVM's local-mode steps, by handle, from {@link #inThisJvm} to {@link #release}. */
    private static final Map<Long, float[]> IN_THIS_JVM = new ConcurrentHashMap<>();
    private static final AtomicLong HANDLES = new AtomicLong();

    private transient float[] values;
    /** This instance's handle in {@link #IN_THIS_JVM}; 0: written as values. */
    private transient long handle;

    /** Parameters written as their values, for readers in any JVM. */
    StepParameters(float[] values) {
        this.values = values;
    }

    /**
     * Parameters whose readers all run in this JVM (local mode), written as a handle to
     * {@code values} until {@link #release()}.
     */
    static StepParameters inThisJvm(float[] values) {
        StepParameters p = new StepParameters(values);
        p.handle = HANDLES.incrementAndGet();
        IN_THIS_JVM.put(p.handle, values);
        return p;
    }

    /** Ends the handle, if any: call after the broadcast is destroyed. */
    void release() {
        if (handle != 0) {
            IN_THIS_JVM.remove(handle);
        }
    }

    /** The parameters: the same array for every task of an executor that reads this broadcast. */
    float[] values() {
        return values;
    }

    @Override
    public void write(Kryo kryo, Output output) {
        try {
            writeTo(output);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void read(Kryo kryo, Input input) {
        try {
            readFrom(input);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void writeObject(ObjectOutputStream out) throws IOException {
        out.defaultWriteObject();
        writeTo(out);
    }

    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
        in.defaultReadObject();
        readFrom(in);
    }

    /** The length and the values, or {@link #BY_HANDLE} and the handle. */
    private void writeTo(OutputStream stream) throws IOException {
        DataOutputStream out = new DataOutputStream(stream);
        if (handle != 0) {
            out.writeInt(BY_HANDLE);
            out.writeLong(handle);
        } else {
            out.writeInt(values.length);
            ArrayStreams.writeFloats(out, values, 0, values.length);
        }
    }

    private void readFrom(InputStream stream) throws IOException {
        DataInputStream in = new DataInputStream(stream);
        int length = in.readInt();
        if (length == BY_HANDLE) {
            values = resolve(in.readLong());
            return;
        }
        values = new float[length];
        ArrayStreams.readFloats(in, values, 0, values.length);
    }

    private static float[] resolve(long handle) {
        float[] v = IN_THIS_JVM.get(handle);
        if (v == null) {
            throw new IllegalStateException("step parameters " + handle + " were written by handle for a local-mode "
                + "driver's own tasks and are not (or no longer) in this JVM: read after the step's broadcast ended, "
                + "or in another process");
        }
        return v;
    }
}

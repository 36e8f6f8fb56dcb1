package io.sparkattention.ml.training;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoSerializable;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import io.sparkattention.nn.ArrayStreams;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;

/**
 * The flat parameters (float32) at which a step's job runs, as its broadcast carries them: the
 * length, then the values as bytes through {@link ArrayStreams}, under Kryo and Java serialization
 * alike (Kryo's own float array writer goes value by value: 44 ms for a fine-tuned MiniLM's 90 MB
 * on Zen 5, the copies about 5). The driver's instance wraps the trainer's vector itself, not a
 * copy (see {@link Trainer}).
 */
final class StepParameters implements Serializable, KryoSerializable {

    private static final long serialVersionUID = 1L;

    private transient float[] values;

    StepParameters(float[] values) {
        this.values = values;
    }

    /** The parameters: the same array for every task of an executor that reads this broadcast. */
    float[] values() {
        return values;
    }

    @Override
    public void write(Kryo kryo, Output output) {
        output.writeInt(values.length);
        try {
            ArrayStreams.writeFloats(output, values, 0, values.length);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void read(Kryo kryo, Input input) {
        values = new float[input.readInt()];
        try {
            ArrayStreams.readFloats(input, values, 0, values.length);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void writeObject(ObjectOutputStream out) throws IOException {
        out.defaultWriteObject();
        out.writeInt(values.length);
        ArrayStreams.writeFloats(out, values, 0, values.length);
    }

    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
        in.defaultReadObject();
        values = new float[in.readInt()];
        ArrayStreams.readFloats(in, values, 0, values.length);
    }
}

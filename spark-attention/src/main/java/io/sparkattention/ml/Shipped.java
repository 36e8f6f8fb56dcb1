package io.sparkattention.ml;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoSerializable;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.Objects;

/**
 * A stage's model (a {@code BertEncoder}, a {@code GptDecoder}, a fine-tuning network) as its
 * broadcast carries it: on the wire the model's Java serialization in one byte array, decoded on
 * first use into the model that every task of the executor then shares. Why not the model itself:
 * Spark's Kryo serializer (the project's {@code spark-defaults.conf} sets it) cannot rebuild Java
 * records such as {@code BertConfig}, and a byte array travels the same under either serializer
 * (this class writes it itself under both: {@link KryoSerializable} and Java's
 * {@code writeObject}).
 *
 * <p>Memory: an instance holds the model or its bytes, not both for long. The driver's instance
 * holds the model and serializes it each time Spark writes it (once, when the broadcast is made,
 * unless its block is dropped to disk), so a fit does not keep a second copy of the model as
 * bytes beside the broadcast's own pieces (90 MB for a fine-tuned MiniLM); a read instance holds
 * the bytes until the model is decoded and then only the model.
 *
 * @param <T> the model's type
 */
public final class Shipped<T extends Serializable> implements Serializable, KryoSerializable {

    private static final long serialVersionUID = 2L;

    /** The bytes read, until decoded; null on the driver and after decoding. */
    private transient byte[] serialized;
    private transient volatile T model;

    private Shipped(T model) {
        this.model = model;
    }

    /**
     * The model, to be serialized when Spark writes the broadcast.
     *
     * @param model the model to ship
     * @return what the broadcast carries
     */
    public static <T extends Serializable> Shipped<T> of(T model) {
        return new Shipped<>(Objects.requireNonNull(model, "model"));
    }

    /** @return the model, decoded once per instance (once per executor for a broadcast value) */
    public T get() {
        T m = model;
        if (m == null) {
            synchronized (this) {
                m = model;
                if (m == null) {
                    m = decode(serialized);
                    model = m;
                    serialized = null;
                }
            }
        }
        return m;
    }

    /** The bytes to write: those read when the model is not decoded yet, else the model serialized now. */
    private byte[] bytes() {
        synchronized (this) {
            if (serialized != null) {
                return serialized;
            }
        }
        T m = get();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(m);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serialize the " + m.getClass().getSimpleName(), e);
        }
        return bytes.toByteArray();
    }

    @Override
    public void write(Kryo kryo, Output output) {
        byte[] b = bytes();
        output.writeInt(b.length);
        output.writeBytes(b);
    }

    @Override
    public void read(Kryo kryo, Input input) {
        serialized = input.readBytes(input.readInt());
    }

    private void writeObject(ObjectOutputStream out) throws IOException {
        byte[] b = bytes();
        out.writeInt(b.length);
        out.write(b);
    }

    private void readObject(ObjectInputStream in) throws IOException {
        byte[] b = new byte[in.readInt()];
        in.readFully(b);
        serialized = b;
    }

    @SuppressWarnings("unchecked")
    private static <T> T decode(byte[] serialized) {
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(serialized))) {
            return (T) in.readObject();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot deserialize the shipped model", e);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("cannot deserialize the shipped model", e);
        }
    }
}

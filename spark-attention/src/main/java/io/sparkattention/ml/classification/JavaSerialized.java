package io.sparkattention.ml.classification;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;

/**
 * A value as a broadcast carries it: its Java serialization in one byte array, decoded on first
 * use into the value every task of the executor then shares. Spark's Kryo serializer (the
 * project's {@code spark-defaults.conf} sets it) cannot rebuild Java records such as
 * {@code BertConfig}; a byte array travels the same under either serializer.
 *
 * @param <T> the value's type
 */
final class JavaSerialized<T extends Serializable> implements Serializable {

    private static final long serialVersionUID = 1L;

    private final byte[] serialized;
    private transient volatile T value;

    private JavaSerialized(byte[] serialized, T value) {
        this.serialized = serialized;
        this.value = value;
    }

    /** The value, serialized once here on the driver. */
    static <T extends Serializable> JavaSerialized<T> of(T value) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(value);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serialize " + value.getClass().getSimpleName(), e);
        }
        return new JavaSerialized<>(bytes.toByteArray(), value);
    }

    /** The value, decoded once per instance (once per executor for a broadcast value). */
    @SuppressWarnings("unchecked")
    T get() {
        T v = value;
        if (v == null) {
            synchronized (this) {
                v = value;
                if (v == null) {
                    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(serialized))) {
                        v = (T) in.readObject();
                    } catch (IOException e) {
                        throw new UncheckedIOException("cannot deserialize a shipped value", e);
                    } catch (ClassNotFoundException e) {
                        throw new IllegalStateException("cannot deserialize a shipped value", e);
                    }
                    value = v;
                }
            }
        }
        return v;
    }
}

package io.sparkattention.ml;

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
 * broadcast carries it: the model's Java serialization in one byte array, decoded on first use
 * into the model that every task of the executor then shares. Why not the model itself: Spark's Kryo serializer (the
 * project's {@code spark-defaults.conf} sets it) cannot rebuild Java records such as
 * {@code BertConfig}, and a byte array travels the same under either serializer.
 *
 * @param <T> the model's type
 */
public final class Shipped<T extends Serializable> implements Serializable {

    private static final long serialVersionUID = 1L;

    private final byte[] serialized;
    private transient volatile T model;

    private Shipped(byte[] serialized, T model) {
        this.serialized = serialized;
        this.model = model;
    }

    /**
     * The model, serialized once here on the driver.
     *
     * @param model the model to ship
     * @return what the broadcast carries
     */
    public static <T extends Serializable> Shipped<T> of(T model) {
        Objects.requireNonNull(model, "model");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(model);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serialize the " + model.getClass().getSimpleName(), e);
        }
        return new Shipped<>(bytes.toByteArray(), model);
    }

    /** @return the model, decoded once per instance (once per executor for a broadcast value) */
    public T get() {
        T m = model;
        if (m == null) {
            synchronized (this) {
                m = model;
                if (m == null) {
                    m = decode();
                    model = m;
                }
            }
        }
        return m;
    }

    @SuppressWarnings("unchecked")
    private T decode() {
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(serialized))) {
            return (T) in.readObject();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot deserialize the shipped model", e);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("cannot deserialize the shipped model", e);
        }
    }
}

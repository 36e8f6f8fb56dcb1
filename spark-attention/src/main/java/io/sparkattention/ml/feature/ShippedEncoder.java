package io.sparkattention.ml.feature;

import io.sparkattention.bert.BertEncoder;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;

/**
 * A {@link BertEncoder} as its broadcast carries it: the encoder's Java serialization in one byte
 * array, decoded on first use into the encoder that every task of the executor then shares. Why
 * not the encoder itself: Spark's Kryo serializer (the project's {@code spark-defaults.conf} sets
 * it) cannot rebuild Java records such as {@code BertConfig}, and a byte array travels the same
 * under either serializer.
 */
final class ShippedEncoder implements Serializable {

    private static final long serialVersionUID = 1L;

    private final byte[] serialized;
    private transient volatile BertEncoder encoder;

    private ShippedEncoder(byte[] serialized, BertEncoder encoder) {
        this.serialized = serialized;
        this.encoder = encoder;
    }

    /** The encoder, serialized once here on the driver. */
    static ShippedEncoder of(BertEncoder encoder) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(encoder);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serialize the encoder", e);
        }
        return new ShippedEncoder(bytes.toByteArray(), encoder);
    }

    /** The encoder, decoded once per instance (once per executor for a broadcast value). */
    BertEncoder get() {
        BertEncoder e = encoder;
        if (e == null) {
            synchronized (this) {
                e = encoder;
                if (e == null) {
                    e = decode();
                    encoder = e;
                }
            }
        }
        return e;
    }

    private BertEncoder decode() {
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(serialized))) {
            return (BertEncoder) in.readObject();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot deserialize the shipped encoder", e);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("cannot deserialize the shipped encoder", e);
        }
    }
}

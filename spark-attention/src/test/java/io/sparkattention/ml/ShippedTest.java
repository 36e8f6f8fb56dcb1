package io.sparkattention.ml;

import org.apache.spark.SparkConf;
import org.apache.spark.serializer.JavaSerializer;
import org.apache.spark.serializer.KryoSerializer;
import org.apache.spark.serializer.SerializerInstance;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

import java.io.Serializable;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/** {@link Shipped}: a model as a broadcast carries it, under Spark's Kryo and Java serializers. */
class ShippedTest {

    /** A record, which Kryo's field serializer cannot rebuild by itself. */
    record Model(String name, float[] values) implements Serializable {
    }

    @SuppressWarnings("unchecked")
    private static final ClassTag<Shipped<Model>> TAG = (ClassTag<Shipped<Model>>) (Object) ClassTag$.MODULE$.apply(
        Shipped.class);

    private static Shipped<Model> roundTrip(SerializerInstance serializer, Shipped<Model> shipped) {
        return serializer.deserialize(serializer.serialize(shipped, TAG), TAG);
    }

    @Test
    @DisplayName("the driver's instance gives its own model; a read one decodes it once, and travels again "
        + "before and after decoding, under Kryo and Java")
    void travelsBeforeAndAfterDecoding() {
        Model model = new Model("w", new float[] {1.5f, -2f, 3.25f});
        Shipped<Model> driver = Shipped.of(model);
        assertSame(model, driver.get());
        for (SerializerInstance serializer : new SerializerInstance[] {
            new KryoSerializer(new SparkConf()).newInstance(), new JavaSerializer(new SparkConf()).newInstance()}) {
            Shipped<Model> read = roundTrip(serializer, driver);
            Shipped<Model> relayed = roundTrip(serializer, read);
            Model decoded = read.get();
            assertSame(decoded, read.get(), "decoded once");
            Shipped<Model> again = roundTrip(serializer, read);
            for (Shipped<Model> s : java.util.List.of(read, relayed, again)) {
                assertEquals("w", s.get().name());
                assertArrayEquals(model.values(), s.get().values(), 0f);
            }
        }
    }
}

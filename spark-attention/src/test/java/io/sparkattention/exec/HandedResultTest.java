package io.sparkattention.exec;

import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.serializer.JavaSerializer;
import org.apache.spark.serializer.KryoSerializer;
import org.apache.spark.serializer.SerializerInstance;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link HandedResult}: in the driver's JVM (local mode) a task's result travels as a handle into
 * an open box and the driver's read takes the task's own object out; once the box is closed, or
 * outside the driver's JVM, the value travels as bytes. (The other side, executors in their own
 * JVMs, runs in the standalone-cluster tests through {@link FixedOrderAggregate}.)
 */
class HandedResultTest {

    private final JavaSparkContext sc = JavaSparkContext.fromSparkContext(SparkTestSession.get().sparkContext());
    private static final ClassTag<HandedResult<double[]>> TAG = ClassTag$.MODULE$.apply(HandedResult.class);

    static Stream<SerializerInstance> serializers() {
        return Stream.of(new KryoSerializer(new SparkConf()).newInstance(),
            new JavaSerializer(new SparkConf()).newInstance());
    }

    @ParameterizedTest
    @MethodSource("serializers")
    @DisplayName("in the driver's JVM with the box open: a handle of a few bytes, read once into the same object")
    void byReference(SerializerInstance serializer) {
        assertTrue(HandedResult.inDriverJvm(), "a local-mode test JVM is the driver's");
        double[] value = new double[100_000];
        value[3] = -0.0;
        long box = HandedResult.open();
        try {
            ByteBuffer bytes = serializer.serialize(HandedResult.of(box, value), TAG);
            assertTrue(bytes.remaining() < 256, bytes.remaining() + " bytes");
            assertEquals(1, HandedResult.pending(box));
            assertSame(value, serializer.deserialize(bytes.duplicate(), TAG).value());
            assertEquals(0, HandedResult.pending(box));
            IllegalStateException twice = assertThrows(IllegalStateException.class, () -> {
                try {
                    serializer.deserialize(bytes.duplicate(), TAG);
                } catch (RuntimeException e) {
                    throw rootCause(e);
                }
            });
            assertTrue(twice.getMessage().contains("is not in its box"), twice.getMessage());
        } finally {
            HandedResult.close(box);
        }
        assertEquals(-1, HandedResult.pending(box));
    }

    @ParameterizedTest
    @MethodSource("serializers")
    @DisplayName("a closed box: the value travels as its bytes, every bit")
    void closedBoxSendsTheValue(SerializerInstance serializer) {
        double[] value = {1.5, -0.0, Double.NaN, Double.MIN_VALUE, 1e308};
        long box = HandedResult.open();
        HandedResult.close(box);
        ByteBuffer bytes = serializer.serialize(HandedResult.of(box, value), TAG);
        assertTrue(bytes.remaining() >= 8 * value.length, bytes.remaining() + " bytes");
        double[] back = serializer.deserialize(bytes, TAG).value();
        assertNotSame(value, back);
        assertArrayEquals(value, back);
    }

    @Test
    @DisplayName("a local job's results: each task's own object, in partition order, the box empty afterwards")
    void throughAJob() {
        long box = HandedResult.open();
        try {
            List<double[]> back = sc.parallelize(IntStream.range(0, 7).boxed().collect(Collectors.toList()), 3)
                .map(i -> HandedResult.of(box, new double[] {i, i * 0.5}))
                .collect().stream().map(HandedResult::value).collect(Collectors.toList());
            for (int i = 0; i < 7; i++) {
                assertArrayEquals(new double[] {i, i * 0.5}, back.get(i));
            }
            assertEquals(0, HandedResult.pending(box));
        } finally {
            HandedResult.close(box);
        }
    }

    private static RuntimeException rootCause(RuntimeException e) {
        Throwable t = e;
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t instanceof RuntimeException r ? r : e;
    }
}

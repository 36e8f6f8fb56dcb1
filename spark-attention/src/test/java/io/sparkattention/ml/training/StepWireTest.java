package io.sparkattention.ml.training;

import io.sparkattention.nn.GradientLayout;
import io.sparkattention.nn.GradientSums;
import io.sparkattention.nn.ParameterTensor;
import org.apache.spark.SparkConf;
import org.apache.spark.serializer.JavaSerializer;
import org.apache.spark.serializer.KryoSerializer;
import org.apache.spark.serializer.SerializerInstance;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a step ships, through Spark's serializers as its jobs use them: {@link StepSums} (whole
 * sums, their slices, loss-only sums) and {@link StepParameters} arrive with every bit, under Kryo
 * and Java serialization, at about their values' size.
 */
class StepWireTest {

    private static final int ROWS = 700, WIDTH = 5;
    /** Layouts with the table first, in the middle, last, alone, and none. */
    private static final List<GradientLayout> LAYOUTS = List.of(
        new GradientLayout(List.of(ParameterTensor.of("table", 0, ROWS, WIDTH), ParameterTensor.of("w", ROWS * WIDTH,
            3, 7)), new int[] {0}),
        new GradientLayout(List.of(ParameterTensor.of("b", 0, 3), ParameterTensor.of("table", 3, ROWS, WIDTH),
            ParameterTensor.of("w", 3 + ROWS * WIDTH, 20_001)), new int[] {1}),
        new GradientLayout(List.of(ParameterTensor.of("w", 0, 11), ParameterTensor.of("table", 11, ROWS, WIDTH)),
            new int[] {1}),
        new GradientLayout(List.of(ParameterTensor.of("table", 0, ROWS, WIDTH)), new int[] {0}),
        new GradientLayout(List.of(ParameterTensor.of("w", 0, 17_000)), new int[0]));

    static Stream<SerializerInstance> serializers() {
        return Stream.of(new KryoSerializer(new SparkConf()).newInstance(),
            new JavaSerializer(new SparkConf()).newInstance());
    }

    private static <T> T trip(SerializerInstance serializer, T value, Class<T> type, long atMostBytes) {
        ClassTag<T> tag = ClassTag$.MODULE$.apply(type);
        ByteBuffer bytes = serializer.serialize(value, tag);
        // Java serialization adds a 5-byte header to each 1 KiB block of a stream's data.
        assertTrue(bytes.remaining() <= atMostBytes, bytes.remaining() + " bytes, more than " + atMostBytes);
        return serializer.deserialize(bytes, tag);
    }

    /** Where each layout's table starts (−1: none). */
    private static final int[] TABLE_AT = {0, 3, 11, 0, -1};

    private static StepSums sums(int l, Random random) {
        GradientLayout layout = LAYOUTS.get(l);
        StepSums sums = new StepSums(new GradientSums(layout));
        float[] flat = new float[layout.parameterCount()];
        for (int i = 0; i < flat.length; i++) {
            flat[i] = random.nextFloat() - 0.5f;
        }
        int tableAt = TABLE_AT[l];
        if (tableAt < 0) {
            sums.grad.addAndClear(flat, 0, flat.length);
        } else {
            sums.grad.addAndClear(flat, 0, tableAt);
            sums.grad.addAndClear(flat, tableAt + ROWS * WIDTH, flat.length);
            for (int id : new int[] {0, ROWS - 1, 345, 17}) {
                sums.grad.addRowAndClear(0, id, flat);
            }
        }
        sums.loss = random.nextDouble();
        sums.weight = 32.5;
        sums.rows = 32;
        sums.largestTaskValues = sums.grad.values();
        return sums;
    }

    @ParameterizedTest
    @MethodSource("serializers")
    @DisplayName("step sums, whole and sliced, arrive with every bit of their scalars, dense values and touched rows")
    void sumsArriveWhole(SerializerInstance serializer) {
        Random random = new Random(11);
        for (int l = 0; l < LAYOUTS.size(); l++) {
            GradientLayout layout = LAYOUTS.get(l);
            StepSums sent = sums(l, random);
            long wholeBytes = 8L * sent.grad.values() * 101 / 100 + 1024;
            StepSums back = trip(serializer, sent, StepSums.class, wholeBytes);
            assertEquals(sent.loss, back.loss);
            assertEquals(sent.weight, back.weight);
            assertEquals(sent.rows, back.rows);
            assertEquals(sent.largestTaskValues, back.largestTaskValues);
            assertArrayEquals(sent.grad.toFlat(), back.grad.toFlat(), 0.0);
            for (int count : new int[] {1, 2, 3}) {
                StepSums whole = new StepSums(new GradientSums(layout)).add(sent);
                StepSums viaSlices = new StepSums(new GradientSums(layout));
                for (int s = 0; s < count; s++) {
                    StepSums slice = whole.slice(s, count);
                    viaSlices.addSlice(s, count, trip(serializer, slice, StepSums.class, wholeBytes));
                }
                StepSums local = new StepSums(new GradientSums(layout));
                for (int s = 0; s < count; s++) {
                    local.addSlice(s, count, whole.slice(s, count));
                }
                assertArrayEquals(local.grad.toFlat(), viaSlices.grad.toFlat(), 0.0, count + " slices");
                assertEquals(local.loss, viaSlices.loss);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("serializers")
    @DisplayName("loss-only sums (no gradient) arrive as their scalars")
    void lossOnlySums(SerializerInstance serializer) {
        StepSums sent = new StepSums(null);
        sent.loss = 3.25;
        sent.weight = 2;
        sent.rows = 2;
        StepSums back = trip(serializer, sent, StepSums.class, 1024);
        assertNull(back.grad);
        assertEquals(3.25, back.loss);
        assertEquals(2, back.rows);
    }

    @ParameterizedTest
    @MethodSource("serializers")
    @DisplayName("a step's parameters arrive with every bit (NaN payloads, -0, subnormals) at about 4 bytes a value")
    void parametersArrive(SerializerInstance serializer) {
        Random random = new Random(12);
        for (int n : new int[] {0, 1, 16_383, 16_384, 16_385, 100_003}) {
            float[] values = new float[n];
            for (int i = 0; i < n; i++) {
                values[i] = Float.intBitsToFloat(random.nextInt());
            }
            float[] back = trip(serializer, new StepParameters(values), StepParameters.class, 4L * n * 101 / 100 + 512).values();
            assertEquals(n, back.length);
            for (int i = 0; i < n; i++) {
                assertEquals(Float.floatToRawIntBits(values[i]), Float.floatToRawIntBits(back[i]), "value " + i);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("serializers")
    @DisplayName("in local mode a step's parameters travel as a handle: the reader gets the driver's array, until released")
    void parametersByHandle(SerializerInstance serializer) {
        float[] values = new float[100_003];
        values[7] = 1.5f;
        StepParameters sent = StepParameters.inThisJvm(values);
        ClassTag<StepParameters> tag = ClassTag$.MODULE$.apply(StepParameters.class);
        ByteBuffer bytes = serializer.serialize(sent, tag);
        assertTrue(bytes.remaining() < 512, bytes.remaining() + " bytes for a handle");
        assertSame(values, serializer.deserialize(bytes.duplicate(), tag).values());
        sent.release();
        Exception e = assertThrows(Exception.class, () -> serializer.deserialize(bytes.duplicate(), tag));
        Throwable cause = e;
        while (!(cause instanceof IllegalStateException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        assertTrue(cause.getMessage().contains("not (or no longer) in this JVM"), cause.getMessage());
    }
}

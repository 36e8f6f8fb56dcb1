package io.sparkattention.ml.training;

import io.sparkattention.nn.GradientLayout;
import io.sparkattention.nn.GradientSums;
import io.sparkattention.nn.ParameterTensor;
import org.apache.spark.SparkConf;
import org.apache.spark.serializer.KryoSerializer;
import org.apache.spark.serializer.SerializerInstance;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import scala.reflect.ClassTag$;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link GradientSums} as the engine ships them: dense tensors plus an embedding table's touched
 * rows, with the bits of dense float64 sums.
 */
class GradientSumsTest {

    /** A bias [3], an embedding table [ROWS, WIDTH] and a weight [2, 4]: the table in the middle. */
    private static final int ROWS = 1000, WIDTH = 4;
    private static final List<ParameterTensor> TENSORS = List.of(ParameterTensor.of("bias", 0, 3),
        ParameterTensor.of("embeddings.weight", 3, ROWS, WIDTH), ParameterTensor.of("weight", 3 + ROWS * WIDTH, 2, 4));
    private static final int COUNT = 3 + ROWS * WIDTH + 8;
    private static final GradientLayout LAYOUT = new GradientLayout(TENSORS, new int[] {1});

    /** One "row" of a step: a dense gradient over bias and weight, and a few touched table rows. */
    private static float[] rowGradient(Random random, int[] touched) {
        float[] flat = new float[COUNT];
        for (int i = 0; i < 3; i++) {
            flat[i] = random.nextFloat() - 0.5f;
        }
        for (int i = 3 + ROWS * WIDTH; i < COUNT; i++) {
            flat[i] = random.nextFloat() - 0.5f;
        }
        for (int id : touched) {
            for (int j = 0; j < WIDTH; j++) {
                flat[3 + id * WIDTH + j] += random.nextFloat() - 0.5f;
            }
        }
        return flat;
    }

    private static void add(GradientSums sums, float[] flat, int[] touched) {
        sums.addAndClear(flat, 0, 3);
        sums.addAndClear(flat, 3 + ROWS * WIDTH, COUNT);
        for (int id : touched) {
            sums.addRowAndClear(0, id, flat);
        }
    }

    @Test
    @DisplayName("sums over rows and merged in a fixed order give the bits of dense float64 sums in that order")
    void bitsOfDenseSums() {
        Random random = new Random(4);
        double[] dense = new double[COUNT];
        GradientSums[] tasks = {new GradientSums(LAYOUT), new GradientSums(LAYOUT)};
        double[][] taskDense = new double[2][COUNT];
        for (int r = 0; r < 20; r++) {
            int[] touched = {random.nextInt(ROWS), random.nextInt(50), 7};
            float[] flat = rowGradient(random, touched);
            int t = r < 12 ? 0 : 1;
            for (int i = 0; i < COUNT; i++) {
                taskDense[t][i] += flat[i];
            }
            add(tasks[t], flat, dedupe(touched));
            assertEquals(0f, max(flat), "the flat vector is cleared");
        }
        for (int i = 0; i < COUNT; i++) {
            dense[i] = taskDense[0][i] + taskDense[1][i];
        }
        double[] merged = new GradientSums(LAYOUT).add(tasks[0]).add(tasks[1]).toFlat();
        assertArrayEquals(dense, merged, 0.0);
        double[] reused = new double[COUNT];
        java.util.Arrays.fill(reused, Double.NaN);
        assertArrayEquals(dense, new GradientSums(LAYOUT).add(tasks[0]).add(tasks[1]).toFlat(reused), 0.0,
            "a reused buffer is overwritten, untouched rows with 0");
    }

    @Test
    @DisplayName("a task result carries the touched rows only, under Java serialization and Spark's Kryo, and merges "
        + "after the trip")
    void travelsAsTouchedRows() throws IOException, ClassNotFoundException {
        Random random = new Random(5);
        GradientSums sums = new GradientSums(LAYOUT);
        int[] touched = {3, 999, 40};
        add(sums, rowGradient(random, touched), touched);
        sums.trim();
        assertEquals(3 + 8 + 3 * WIDTH, sums.values());
        byte[] java = javaBytes(sums);
        assertTrue(java.length < ROWS * WIDTH * 4, "Java form " + java.length + " bytes, under the table's 16000");
        GradientSums back = (GradientSums) new ObjectInputStream(new ByteArrayInputStream(java)).readObject();
        SerializerInstance kryo = new KryoSerializer(new SparkConf()).newInstance();
        ByteBuffer kryoBytes = kryo.serialize(sums, ClassTag$.MODULE$.apply(GradientSums.class));
        assertTrue(kryoBytes.remaining() < ROWS * WIDTH * 4, "Kryo form " + kryoBytes.remaining() + " bytes");
        GradientSums viaKryo = kryo.deserialize(kryoBytes, ClassTag$.MODULE$.apply(GradientSums.class));
        for (GradientSums arrived : new GradientSums[] {back, viaKryo}) {
            assertArrayEquals(sums.toFlat(), arrived.toFlat(), 0.0);
            int[] more = {40, 5};
            float[] flat = rowGradient(new Random(6), more);
            float[] copy = flat.clone();
            add(arrived, flat, more);
            GradientSums expected = new GradientSums(LAYOUT).add(sums);
            add(expected, copy, more);
            assertArrayEquals(expected.toFlat(), arrived.toFlat(), 0.0);
            assertEquals(4, arrived.touchedRows(0));
        }
    }

    @Test
    @DisplayName("float64 flushes add as float32 ones do, and a dense range may not cut into the table")
    void doubleFlushAndRanges() {
        Random random = new Random(8);
        int[] touched = {11};
        float[] flat = rowGradient(random, touched);
        double[] wide = new double[COUNT];
        for (int i = 0; i < COUNT; i++) {
            wide[i] = flat[i];
        }
        GradientSums a = new GradientSums(LAYOUT);
        add(a, flat, touched);
        GradientSums b = new GradientSums(LAYOUT);
        b.addAndClear(wide, 0, 3);
        b.addAndClear(wide, 3 + ROWS * WIDTH, COUNT);
        b.addRowAndClear(0, 11, wide);
        assertArrayEquals(a.toFlat(), b.toFlat(), 0.0);
        assertArrayEquals(new double[COUNT], wide, 0.0);
        assertThrows(IllegalArgumentException.class, () -> b.addAndClear(new float[COUNT], 0, 4));
    }

    @Test
    @DisplayName("a range of the flat vector read alone is that range of the whole flat vector, across the table's "
        + "edges and its rows")
    void flatRanges() {
        Random random = new Random(9);
        GradientSums sums = new GradientSums(LAYOUT);
        for (int r = 0; r < 5; r++) {
            int[] touched = dedupe(new int[] {random.nextInt(ROWS), 0, ROWS - 1, 500});
            add(sums, rowGradient(random, touched), touched);
        }
        double[] whole = sums.toFlat();
        for (int width : new int[] {1, 3, WIDTH + 1, 37, 1000, COUNT}) {
            for (int from = 0; from < COUNT; from += Math.max(1, width / 2)) {
                int to = Math.min(COUNT, from + width);
                double[] window = new double[width + 2];
                java.util.Arrays.fill(window, Double.NaN);
                sums.toFlat(from, to, window);
                assertArrayEquals(java.util.Arrays.copyOfRange(whole, from, to),
                    java.util.Arrays.copyOf(window, to - from), 0.0, "[" + from + ", " + to + ")");
                assertTrue(Double.isNaN(window[to - from]), "nothing is written past the range");
            }
        }
        assertThrows(IllegalArgumentException.class, () -> sums.toFlat(5, COUNT + 1, new double[COUNT]));
        assertThrows(IllegalArgumentException.class, () -> sums.toFlat(0, 10, new double[9]));
    }

    @Test
    @DisplayName("deferred sums hold what is added and read, range by range, the bits of a zeroed total's adds "
        + "(negative zeros too); any other use makes them whole first")
    void deferredSums() throws IOException, ClassNotFoundException {
        Random random = new Random(10);
        GradientSums[] tasks = new GradientSums[3];
        for (int t = 0; t < tasks.length; t++) {
            tasks[t] = new GradientSums(LAYOUT);
            int[] touched = dedupe(new int[] {random.nextInt(ROWS), 7, t});
            float[] flat = rowGradient(random, touched);
            flat[0] = -0.0f;
            add(tasks[t], flat, touched);
        }
        GradientSums zeroed = new GradientSums(LAYOUT);
        GradientSums deferred = GradientSums.deferred(LAYOUT);
        for (GradientSums task : tasks) {
            zeroed.add(task);
            deferred.add(task);
        }
        double[] whole = zeroed.toFlat();
        assertEquals(0L, Double.doubleToRawLongBits(whole[0]), "0.0 + -0.0 is +0.0");
        for (int width : new int[] {1, 2, WIDTH + 3, 999, COUNT}) {
            for (int from = 0; from < COUNT; from += Math.max(1, width / 2)) {
                int to = Math.min(COUNT, from + width);
                double[] window = new double[to - from];
                deferred.toFlat(from, to, window);
                assertSameBits(java.util.Arrays.copyOfRange(whole, from, to), window, "[" + from + ", " + to + ")");
            }
        }
        GradientSums slices = GradientSums.deferred(LAYOUT);
        GradientSums slicesZeroed = new GradientSums(LAYOUT);
        for (int s = 0; s < 3; s++) {
            slices.addSlice(s, 3, tasks[0].slice(s, 3).add(tasks[1].slice(s, 3)));
            slicesZeroed.addSlice(s, 3, tasks[0].slice(s, 3).add(tasks[1].slice(s, 3)));
        }
        assertSameBits(slicesZeroed.toFlat(), slices.toFlat(), "slices added into deferred sums");
        GradientSums back = (GradientSums) new ObjectInputStream(new ByteArrayInputStream(javaBytes(deferred)))
            .readObject();
        assertSameBits(whole, back.toFlat(), "after Java serialization");
        SerializerInstance kryo = new KryoSerializer(new SparkConf()).newInstance();
        GradientSums viaKryo = kryo.deserialize(kryo.serialize(GradientSums.deferred(LAYOUT).add(tasks[2]),
            ClassTag$.MODULE$.apply(GradientSums.class)), ClassTag$.MODULE$.apply(GradientSums.class));
        assertSameBits(new GradientSums(LAYOUT).add(tasks[2]).toFlat(), viaKryo.toFlat(), "after Kryo");
        assertSameBits(new GradientSums(LAYOUT).addSlice(1, 2, zeroed.slice(1, 2)).toFlat(),
            new GradientSums(LAYOUT).addSlice(1, 2, deferred.slice(1, 2)).toFlat(), "a slice of deferred sums");
        float[] more = rowGradient(random, new int[] {3});
        float[] copy = more.clone();
        add(zeroed, more, new int[] {3});
        add(deferred, copy, new int[] {3});
        assertSameBits(zeroed.toFlat(), deferred.toFlat(), "rows added after it was made whole");
    }

    private static void assertSameBits(double[] expected, double[] actual, String where) {
        assertEquals(expected.length, actual.length, where);
        for (int i = 0; i < expected.length; i++) {
            assertEquals(Double.doubleToRawLongBits(expected[i]), Double.doubleToRawLongBits(actual[i]),
                where + ", value " + i);
        }
    }

    private static int[] dedupe(int[] ids) {
        return java.util.Arrays.stream(ids).distinct().toArray();
    }

    private static float max(float[] v) {
        float m = 0;
        for (float f : v) {
            m = Math.max(m, Math.abs(f));
        }
        return m;
    }

    private static byte[] javaBytes(Object o) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(o);
        }
        return bytes.toByteArray();
    }
}

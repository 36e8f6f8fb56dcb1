package io.sparkattention.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the writer writes, the reader reads back unchanged, in the layout of the Python library. */
class SafeTensorsRoundTripTest {

    @TempDir
    Path dir;

    private static float[] randomFloats(Random r, int n) {
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = (float) r.nextGaussian();
        }
        return x;
    }

    @Test
    void everyWrittenDtypeReadsBackUnchanged() throws Exception {
        Random r = new Random(42);
        float[] f32 = randomFloats(r, 2 * 3 * 4);
        double[] f64 = r.doubles(5).toArray();
        long[] i64 = {Long.MIN_VALUE, -1, 0, 1, Long.MAX_VALUE, 300};
        int[] i32 = {Integer.MIN_VALUE, -7, 0, 7, Integer.MAX_VALUE, 65536};
        boolean[] bool = {true, false, false, true, true, false};
        Map<String, Tensor> tensors = Map.of(
            "f32", Tensor.f32(f32, 2, 3, 4),
            "f64", Tensor.f64(f64, 5),
            "i64", Tensor.i64(i64, 2, 3),
            "i32", Tensor.i32(i32, 3, 2),
            "bool", Tensor.bool(bool, 6),
            "scalar", Tensor.f32(new float[] {3.5f}),
            "empty", Tensor.f32(new float[0], 0, 5));
        Path file = dir.resolve("all.safetensors");
        SafeTensorsWriter.write(file, tensors, Map.of("format", "pt", "note", "round trip"));

        SafeTensors st = SafeTensors.read(file);
        assertEquals(List.of("bool", "empty", "f32", "f64", "i32", "i64", "scalar"), st.names());
        assertEquals(Map.of("format", "pt", "note", "round trip"), st.metadata());
        assertArrayEquals(f32, st.floats("f32"));
        assertArrayEquals(new long[] {2, 3, 4}, st.shape("f32"));
        assertArrayEquals(new int[] {2, 3, 4}, st.intShape("f32"));
        assertEquals(DType.F32, st.dtype("f32"));
        assertArrayEquals(f64, st.doubles("f64"));
        assertEquals(DType.F64, st.dtype("f64"));
        assertArrayEquals(i64, st.longs("i64"));
        assertArrayEquals(i32, st.ints("i32"));
        assertArrayEquals(new long[] {3, 2}, st.shape("i32"));
        assertArrayEquals(bool, st.booleans("bool"));
        assertArrayEquals(new long[0], st.shape("scalar"), "a scalar has no dimensions");
        assertEquals(1, st.elementCount("scalar"));
        assertArrayEquals(new float[] {3.5f}, st.floats("scalar"));
        assertArrayEquals(new long[] {0, 5}, st.shape("empty"));
        assertEquals(0, st.floats("empty").length);
        assertTrue(st.has("f32"));
        assertTrue(!st.has("__metadata__"), "metadata is not a tensor");
    }

    @Test
    void specialFloatValuesSurviveBitForBit() throws Exception {
        float[] special = {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, -0.0f, Float.MIN_VALUE,
            Float.MAX_VALUE, Float.MIN_NORMAL};
        byte[] bytes = SafeTensorsWriter.toBytes(Map.of("x", Tensor.f32(special, 7)), null);
        SafeTensors st = SafeTensors.fromBytes(bytes, "mem");
        float[] back = st.floats("x");
        for (int i = 0; i < special.length; i++) {
            assertEquals(Float.floatToRawIntBits(special[i]), Float.floatToRawIntBits(back[i]), "element " + i);
        }
        assertTrue(st.metadata().isEmpty());
    }

    @Test
    void float64IsRoundedToNearestFloat32AndFloat32WidensExactly() throws Exception {
        double[] values = {0.1, 1.0 / 3, 1e-40, 1e40, -2.5};
        SafeTensors st = SafeTensors.fromBytes(SafeTensorsWriter.toBytes(Map.of(
            "d", Tensor.f64(values, 5), "f", Tensor.f32(new float[] {0.1f}, 1)), null), "mem");
        float[] f = st.floats("d");
        for (int i = 0; i < values.length; i++) {
            assertEquals((float) values[i], f[i], 0.0f);
        }
        assertEquals(Float.POSITIVE_INFINITY, f[3], "beyond float range rounds to infinity");
        assertEquals((double) 0.1f, st.doubles("f")[0], 0.0);
    }

    @Test
    void headerIsPaddedWithSpacesToEightBytesAndTensorsAreLaidOutByName() throws Exception {
        byte[] bytes = SafeTensorsWriter.toBytes(Map.of(
            "b", Tensor.f32(new float[] {2}, 1),
            "a", Tensor.f32(new float[] {1, 1}, 2)), Map.of("k", "v"));
        long n = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getLong(0);
        assertEquals(0, n % SafeTensorsWriter.HEADER_ALIGNMENT);
        String header = new String(bytes, 8, (int) n, StandardCharsets.UTF_8);
        assertEquals("{\"__metadata__\":{\"k\":\"v\"},"
            + "\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
            + "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]}}", header.stripTrailing());
        assertTrue(header.length() - header.stripTrailing().length() < 8);
        assertTrue(header.substring(header.stripTrailing().length()).chars().allMatch(c -> c == ' '));
        assertEquals(8 + n + 12, bytes.length);
    }

    /**
     * The fixtures were written by a Python writer that follows the reference library's layout; read
     * and re-written here, every fixture comes out byte for byte identical.
     */
    @Test
    void rewritingAFixtureReproducesItByteForByte() throws Exception {
        for (String name : List.of("mha_key_padding", "sdpa_seed_causal", "mha_cross_kdim_vdim")) {
            Path fixture = Fixtures.path(name);
            SafeTensors st = SafeTensors.read(fixture);
            Map<String, Tensor> tensors = new TreeMap<>();
            for (String t : st.names()) {
                long[] shape = st.shape(t);
                switch (st.dtype(t)) {
                    case F32: tensors.put(t, Tensor.f32(st.floats(t), shape)); break;
                    case F64: tensors.put(t, Tensor.f64(st.doubles(t), shape)); break;
                    case I64: tensors.put(t, Tensor.i64(st.longs(t), shape)); break;
                    case BOOL: tensors.put(t, Tensor.bool(st.booleans(t), shape)); break;
                    default: throw new AssertionError(st.dtype(t));
                }
            }
            Path copy = dir.resolve(name + ".safetensors");
            SafeTensorsWriter.write(copy, tensors, st.metadata());
            assertArrayEquals(Files.readAllBytes(fixture), Files.readAllBytes(copy), name);
        }
    }

    @Test
    void fileStreamAndByteArrayWritersProduceTheSameBytes() throws Exception {
        Map<String, Tensor> tensors = Map.of("w", Tensor.f32(randomFloats(new Random(1), 6), 2, 3));
        Path file = dir.resolve("w.safetensors");
        SafeTensorsWriter.write(file, tensors, Map.of("a", "b"));
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        SafeTensorsWriter.write(stream, tensors, Map.of("a", "b"));
        byte[] bytes = SafeTensorsWriter.toBytes(tensors, Map.of("a", "b"));
        assertArrayEquals(Files.readAllBytes(file), bytes);
        assertArrayEquals(stream.toByteArray(), bytes);
        assertArrayEquals(SafeTensors.read(file).floats("w"), SafeTensors.fromBytes(bytes, "mem").floats("w"));
    }

    /** Tensors larger than the read buffer cross chunk boundaries at every width. */
    @Test
    void tensorsSpanningManyReadChunksReadBackExactly() throws Exception {
        Random r = new Random(7);
        int n = 3 * (ElementReader.CHUNK_BYTES / Float.BYTES) + 17;
        float[] big = randomFloats(r, n);
        double[] bigDouble = r.doubles(ElementReader.CHUNK_BYTES / Double.BYTES + 5).toArray();
        Path file = dir.resolve("big.safetensors");
        SafeTensorsWriter.write(file, Map.of("big", Tensor.f32(big, n), "d", Tensor.f64(bigDouble, bigDouble.length)),
            null);
        SafeTensors st = SafeTensors.read(file);
        assertArrayEquals(big, st.floats("big"));
        assertArrayEquals(bigDouble, st.doubles("d"));
        int from = ElementReader.CHUNK_BYTES / Float.BYTES - 3;
        float[] slice = st.floats("big", from, 10);
        for (int i = 0; i < 10; i++) {
            assertEquals(big[from + i], slice[i]);
        }
    }

    @Test
    void floatsSliceReadsRowsAndRefusesRangesOutsideTheTensor() throws Exception {
        float[] w = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
        byte[] bytes = SafeTensorsWriter.toBytes(Map.of("w", Tensor.f32(w, 4, 3)), null);
        SafeTensors st = SafeTensors.fromBytes(bytes, "mem");
        assertArrayEquals(new float[] {3, 4, 5, 6, 7, 8}, st.floats("w", 3, 6));
        assertArrayEquals(new float[0], st.floats("w", 12, 0));
        assertThrows(IllegalArgumentException.class, () -> st.floats("w", 10, 3));
        assertThrows(IllegalArgumentException.class, () -> st.floats("w", -1, 2));
    }

    @Test
    void overwritingIsAtomicAndLeavesNoTemporaryFiles() throws Exception {
        Path file = dir.resolve("model.safetensors");
        SafeTensorsWriter.write(file, Map.of("x", Tensor.f32(new float[] {1}, 1)), null);
        SafeTensorsWriter.write(file, Map.of("x", Tensor.f32(new float[] {2, 3}, 2)), null);
        assertArrayEquals(new float[] {2, 3}, SafeTensors.read(file).floats("x"));
        byte[] before = Files.readAllBytes(file);
        assertThrows(IllegalArgumentException.class,
            () -> SafeTensorsWriter.write(file, Map.of("__metadata__", Tensor.f32(new float[] {1}, 1)), null));
        assertArrayEquals(before, Files.readAllBytes(file), "a refused write leaves the old file");
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of(file), files.collect(Collectors.toList()));
        }
    }

    @Test
    void writerRefusesShapesThatDoNotMatchTheData() {
        assertThrows(IllegalArgumentException.class, () -> Tensor.f32(new float[6], 2, 2));
        assertThrows(IllegalArgumentException.class, () -> Tensor.i64(new long[0], -1, 0));
        assertThrows(IllegalArgumentException.class,
            () -> SafeTensorsWriter.toBytes(Map.of("", Tensor.f32(new float[1], 1)), null));
    }

    @Test
    void narrowIntegerTypesWidenWithTheirSignedness(@TempDir Path tmp) throws Exception {
        String header = "{" + RawSafeTensors.entry("i8", "I8", "[2]", 0, 2) + ","
            + RawSafeTensors.entry("u8", "U8", "[2]", 2, 4) + ","
            + RawSafeTensors.entry("i16", "I16", "[1]", 4, 6) + ","
            + RawSafeTensors.entry("u16", "U16", "[1]", 6, 8) + ","
            + RawSafeTensors.entry("u32", "U32", "[1]", 8, 12) + "}";
        byte[] data = {(byte) 0xFF, 5, (byte) 0xFF, 5, (byte) 0xFE, (byte) 0xFF, (byte) 0xFE, (byte) 0xFF,
            (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF};
        SafeTensors st = SafeTensors.read(RawSafeTensors.write(tmp.resolve("ints.safetensors"), header, data));
        assertArrayEquals(new long[] {-1, 5}, st.longs("i8"));
        assertArrayEquals(new long[] {255, 5}, st.longs("u8"));
        assertArrayEquals(new int[] {255, 5}, st.ints("u8"));
        assertArrayEquals(new long[] {-2}, st.longs("i16"));
        assertArrayEquals(new long[] {65534}, st.longs("u16"));
        assertArrayEquals(new long[] {0xFFFF_FFFFL}, st.longs("u32"));
        TensorFormatException e = assertThrows(TensorFormatException.class, () -> st.ints("u32"));
        assertTrue(e.getMessage().contains("outside the int range"), e.getMessage());
    }

    @Test
    void readingATensorAsTheWrongKindNamesItsDtype() throws Exception {
        byte[] bytes = SafeTensorsWriter.toBytes(Map.of(
            "lengths", Tensor.i64(new long[] {3}, 1),
            "w", Tensor.f32(new float[] {1}, 1)), null);
        SafeTensors st = SafeTensors.fromBytes(bytes, "weights.safetensors");
        TensorFormatException e = assertThrows(TensorFormatException.class, () -> st.floats("lengths"));
        assertEquals("weights.safetensors", e.source());
        assertEquals("lengths", e.tensor());
        assertTrue(e.getMessage().contains("I64"), e.getMessage());
        assertThrows(TensorFormatException.class, () -> st.longs("w"));
        assertThrows(TensorFormatException.class, () -> st.booleans("w"));
        TensorFormatException missing = assertThrows(TensorFormatException.class, () -> st.floats("nope"));
        assertEquals("nope", missing.tensor());
        assertTrue(missing.getMessage().contains("'lengths', 'w'"),
            "lists what the file holds: " + missing.getMessage());
    }

    @Test
    void boolBytesOtherThanZeroOrOneAndHugeU64AreRefused(@TempDir Path tmp) throws Exception {
        String header = "{" + RawSafeTensors.entry("m", "BOOL", "[3]", 0, 3) + ","
            + RawSafeTensors.entry("u", "U64", "[1]", 3, 11) + "}";
        byte[] data = {1, 0, 2, -1, -1, -1, -1, -1, -1, -1, -1};
        SafeTensors st = SafeTensors.read(RawSafeTensors.write(tmp.resolve("b.safetensors"), header, data));
        TensorFormatException e = assertThrows(TensorFormatException.class, () -> st.booleans("m"));
        assertTrue(e.getMessage().contains("element 2 is byte 2"), e.getMessage());
        TensorFormatException u = assertThrows(TensorFormatException.class, () -> st.longs("u"));
        assertTrue(u.getMessage().contains("element 0"), u.getMessage());
    }

    @Test
    void eightBitFloatTensorsOpenButAreNotConverted(@TempDir Path tmp) throws Exception {
        String header = "{" + RawSafeTensors.entry("q", "F8_E4M3", "[2]", 0, 2) + ","
            + RawSafeTensors.entry("w", "F32", "[1]", 2, 6) + "}";
        byte[] data = new byte[6];
        System.arraycopy(RawSafeTensors.floats(1.5f), 0, data, 2, 4);
        SafeTensors st = SafeTensors.read(RawSafeTensors.write(tmp.resolve("f8.safetensors"), header, data));
        assertArrayEquals(new float[] {1.5f}, st.floats("w"), "unaligned tensors read correctly");
        assertEquals(DType.F8_E4M3, st.dtype("q"));
        assertThrows(TensorFormatException.class, () -> st.floats("q"));
    }

    @Test
    void aFileThatChangesSizeAfterOpeningIsNotReadSilently() throws Exception {
        Path file = dir.resolve("changing.safetensors");
        SafeTensorsWriter.write(file, Map.of("x", Tensor.f32(new float[] {1, 2}, 2)), null);
        SafeTensors st = SafeTensors.read(file);
        Files.write(file, new byte[] {0}, StandardOpenOption.APPEND);
        TensorFormatException e = assertThrows(TensorFormatException.class, () -> st.floats("x"));
        assertEquals("x", e.tensor());
        assertTrue(e.getMessage().contains("size changed"), e.getMessage());
    }
}

package io.sparkattention.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code .npy} files as numpy writes them read back as float32; anything but little-endian
 * float32/float64 in C order is refused with an error naming the file and what it found.
 */
class NpyTest {

    private static final float[] ARANGE_3X4 = {-1, -0.5f, 0, 0.5f, 1, 1.5f, 2, 2.5f, 3, 3.5f, 4, 4.5f};

    @TempDir
    Path dir;

    private static Path npy(String name) {
        try {
            return Path.of(NpyTest.class.getResource("/fixtures/npy/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static TensorFormatException refused(Path file, String phrase) {
        TensorFormatException e = assertThrows(TensorFormatException.class, () -> Npy.read(file));
        assertEquals(file.toString(), e.source());
        assertNull(e.tensor());
        assertTrue(e.getMessage().startsWith(file + ": "), e.getMessage());
        assertTrue(e.getMessage().contains(phrase), () -> "'" + phrase + "' not in: " + e.getMessage());
        return e;
    }

    /** A file with numpy's preamble for {@code version}, the given header text, and data bytes. */
    private Path raw(String name, int version, String header, byte[] data) throws Exception {
        byte[] h = header.getBytes(StandardCharsets.ISO_8859_1);
        int preamble = version == 1 ? 10 : 12;
        ByteBuffer b = ByteBuffer.allocate(preamble + h.length + data.length).order(ByteOrder.LITTLE_ENDIAN);
        b.put(Npy.MAGIC).put((byte) version).put((byte) 0);
        if (version == 1) {
            b.putShort((short) h.length);
        } else {
            b.putInt(h.length);
        }
        b.put(h).put(data);
        Path f = dir.resolve(name);
        Files.write(f, b.array());
        return f;
    }

    @Test
    void float32WrittenByNumpyInEveryFormatVersion() throws Exception {
        for (String name : new String[] {"f4_3x4.npy", "f4_3x4_v2.npy", "f4_3x4_v3.npy"}) {
            NpyArray a = Npy.read(npy(name));
            assertArrayEquals(new long[] {3, 4}, a.shape(), name);
            assertArrayEquals(ARANGE_3X4, a.data(), name);
            assertEquals("<f4", a.descr());
        }
    }

    @Test
    void float64IsRoundedToFloat32() throws Exception {
        NpyArray a = Npy.read(npy("f8_2x3.npy"));
        assertArrayEquals(new long[] {2, 3}, a.shape());
        assertEquals("<f8", a.descr());
        assertArrayEquals(new float[] {(float) 0.1, (float) (1.0 / 3), Float.POSITIVE_INFINITY, -2.5f, 0.0f, 7.0f},
            a.data());
    }

    @Test
    void scalarsVectorsAndEmptyArrays() throws Exception {
        NpyArray scalar = Npy.read(npy("f4_scalar.npy"));
        assertArrayEquals(new long[0], scalar.shape());
        assertArrayEquals(new float[] {7.25f}, scalar.data());
        NpyArray vector = Npy.read(npy("f4_vector5.npy"));
        assertArrayEquals(new long[] {5}, vector.shape());
        assertArrayEquals(new float[] {1, -2, 3.5f, 0, -0.0f}, vector.data());
        NpyArray empty = Npy.read(npy("f4_empty_0x3.npy"));
        assertArrayEquals(new long[] {0, 3}, empty.shape());
        assertEquals(0, empty.data().length);
    }

    /** The writer produces exactly the bytes numpy's {@code np.save} does. */
    @Test
    void writerMatchesNumpyByteForByte() throws Exception {
        Path f = dir.resolve("a.npy");
        Npy.write(f, ARANGE_3X4, 3, 4);
        assertArrayEquals(Files.readAllBytes(npy("f4_3x4.npy")), Files.readAllBytes(f));
        Npy.write(f, new float[] {7.25f});
        assertArrayEquals(Files.readAllBytes(npy("f4_scalar.npy")), Files.readAllBytes(f));
        Npy.write(f, new float[] {1, -2, 3.5f, 0, -0.0f}, 5);
        assertArrayEquals(Files.readAllBytes(npy("f4_vector5.npy")), Files.readAllBytes(f));
    }

    @Test
    void largeArraysRoundTripThroughManyReadChunks() throws Exception {
        Random r = new Random(3);
        float[] x = new float[2 * (ElementReader.CHUNK_BYTES / Float.BYTES) + 9];
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) r.nextGaussian();
        }
        Path f = dir.resolve("big.npy");
        Npy.write(f, x, 1, x.length);
        NpyArray a = Npy.read(f);
        assertArrayEquals(new long[] {1, x.length}, a.shape());
        assertArrayEquals(x, a.data());
        assertArrayEquals(x, Npy.fromBytes(Files.readAllBytes(f), "mem").data());
    }

    @Test
    void bigEndianIsRefused() {
        refused(npy("be_f4.npy"), "dtype descr '>f4' is not supported");
    }

    @Test
    void integersAreRefused() {
        refused(npy("i4.npy"), "dtype descr '<i4' is not supported");
    }

    @Test
    void fortranOrderIsRefused() {
        refused(npy("fortran_f4.npy"), "fortran_order True is not supported");
    }

    @Test
    void structuredDtypeIsRefused() throws Exception {
        Path f = raw("struct.npy", 1, "{'descr': [('x', '<f4')], 'fortran_order': False, 'shape': (1,), }\n",
            new byte[4]);
        refused(f, "a structured dtype");
    }

    @Test
    void wrongMagic() throws Exception {
        byte[] bytes = Files.readAllBytes(npy("f4_3x4.npy"));
        bytes[1] = 'X';
        Path f = dir.resolve("magic.npy");
        Files.write(f, bytes);
        refused(f, "not a .npy file: it starts with \\x93\\x58\\x55\\x4d\\x50\\x59");
    }

    @Test
    void truncatedData() throws Exception {
        byte[] bytes = Files.readAllBytes(npy("f4_3x4.npy"));
        Path f = dir.resolve("short.npy");
        Files.write(f, Arrays.copyOf(bytes, bytes.length - 5));
        refused(f, "data has 43 bytes, but shape [3, 4] of '<f4' needs 48 (file truncated?)");
    }

    @Test
    void trailingBytesAfterTheData() throws Exception {
        byte[] bytes = Files.readAllBytes(npy("f4_3x4.npy"));
        Path f = dir.resolve("long.npy");
        Files.write(f, Arrays.copyOf(bytes, bytes.length + 4));
        refused(f, "4 bytes after the data");
    }

    @Test
    void truncatedPreambleAndHeader() throws Exception {
        byte[] bytes = Files.readAllBytes(npy("f4_3x4.npy"));
        Path tiny = dir.resolve("tiny.npy");
        Files.write(tiny, Arrays.copyOf(bytes, 7));
        refused(tiny, "too few for a .npy header");
        Path cut = dir.resolve("cut.npy");
        Files.write(cut, Arrays.copyOf(bytes, 40));
        refused(cut, "header length 118 exceeds the 30 bytes that follow it");
    }

    @Test
    void hugeHeaderLengthIsRefusedBeforeAllocating() throws Exception {
        ByteBuffer b = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
        b.put(Npy.MAGIC).put((byte) 2).put((byte) 0).putInt(-1);
        Path f = dir.resolve("huge.npy");
        Files.write(f, b.array());
        refused(f, "header length 4294967295 exceeds");
    }

    @Test
    void unsupportedVersion() throws Exception {
        refused(raw("v4.npy", 4, "{}", new byte[0]), "unsupported .npy format version 4.0");
    }

    @Test
    void malformedHeaders() throws Exception {
        refused(raw("notdict.npy", 1, "[1, 2]\n", new byte[0]), "header is not a dict");
        refused(raw("syntax.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4}\n", new byte[48]),
            "header is not a Python dict literal");
        refused(raw("keys.npy", 1, "{'descr': '<f4', 'shape': (1,), }\n", new byte[4]), "header keys are");
        refused(raw("negative.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }\n", new byte[0]),
            "must hold non-negative 64-bit integers, found -1");
        refused(raw("overflow.npy", 1,
            "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }\n", new byte[0]),
            "more bytes than a 64-bit count can express");
        refused(raw("toobig.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (65536, 65536), }\n",
            new byte[0]), "more than a Java array holds");
        refused(raw("deep.npy", 1, "[".repeat(100) + "]".repeat(100), new byte[0]), "nested deeper");
    }

    @Test
    void pythonTwoStyleLongShapesAreRead() throws Exception {
        Path f = raw("py2.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1L, 2L), }\n",
            RawSafeTensors.floats(1, 2));
        assertArrayEquals(new long[] {1, 2}, Npy.read(f).shape());
    }
}

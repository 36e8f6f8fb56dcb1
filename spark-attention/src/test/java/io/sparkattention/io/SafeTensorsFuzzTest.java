package io.sparkattention.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.DisplayName;

/**
 * Any bytes given to {@link SafeTensors} either open as a file whose every tensor reads back in
 * full, by every reader its dtype allows, or are refused with a {@link TensorFormatException}
 * that names the source. Nothing else is thrown, and no array outgrows the input.
 *
 * <p>Without {@code JAZZER_FUZZ} this runs the checked-in inputs under
 * {@code src/test/resources/io/sparkattention/io/SafeTensorsFuzzTestInputs/}; with it, Jazzer
 * mutates them for {@code maxDuration} (see {@code examples/peers/fuzz_long.sh}).
 */
class SafeTensorsFuzzTest {

    private static final String SOURCE = "fuzzed.safetensors";

    @FuzzTest(maxDuration = "10s")
    @DisplayName("any bytes open as safetensors whose every tensor reads back, or are refused naming the source")
    void anyBytesOpenAndReadOrAreRefusedNamingTheSource(byte[] bytes) throws IOException {
        SafeTensors st;
        try {
            st = SafeTensors.fromBytes(bytes, SOURCE);
        } catch (TensorFormatException e) {
            Refusals.assertNamesSource(e, SOURCE);
            assertRefusedThroughInput(bytes);
            return;
        }
        assertEquals(st.names(), SafeTensors.read(SOURCE, () -> new ArrayInput(bytes)).names(),
            "an Input over the same bytes holds the same tensors");
        for (String name : st.names()) {
            readEveryWay(st, name, bytes.length);
        }
        assertThrows(TensorFormatException.class, () -> st.floats("\0 no such tensor"));
    }

    private static void assertRefusedThroughInput(byte[] bytes) throws IOException {
        TensorFormatException e = assertThrows(TensorFormatException.class,
            () -> SafeTensors.read(SOURCE, () -> new ArrayInput(bytes)));
        Refusals.assertNamesSource(e, SOURCE);
    }

    /** Reads one tensor with each reader: its dtype's readers succeed, the others refuse it. */
    private static void readEveryWay(SafeTensors st, String name, long inputLength) throws IOException {
        DType dtype = st.dtype(name);
        long count = st.elementCount(name);
        Refusals.assertBackedByInput(count, dtype.width(), inputLength, name);
        long product = 1;
        for (long d : st.shape(name)) {
            product *= d;
        }
        assertEquals(count, product, "element count of " + name);
        try {
            st.intShape(name);
        } catch (TensorFormatException e) {
            Refusals.assertNamesSource(e, SOURCE);
        }
        if (dtype.isFloat()) {
            float[] floats = st.floats(name);
            double[] doubles = st.doubles(name);
            assertEquals(count, floats.length, name);
            assertEquals(count, doubles.length, name);
            int part = (int) Math.min(count, 3);
            long from = count - part;
            assertArrayEquals(Arrays.copyOfRange(floats, (int) from, (int) count), st.floats(name, from, part),
                "the last elements of " + name + " read alone");
            Refusals.assertExplained(assertThrows(IllegalArgumentException.class,
                () -> st.floats(name, from + 1, part)));
        } else {
            refusedAsWrongDtype(() -> st.floats(name).length);
            refusedAsWrongDtype(() -> st.floats(name, 0, 0).length);
            refusedAsWrongDtype(() -> st.doubles(name).length);
        }
        if (dtype.isInteger()) {
            assertEquals(count, readOrRefused(() -> st.longs(name).length, count), name);
            assertEquals(count, readOrRefused(() -> st.ints(name).length, count), name);
        } else {
            refusedAsWrongDtype(() -> st.longs(name).length);
            refusedAsWrongDtype(() -> st.ints(name).length);
        }
        if (dtype == DType.BOOL) {
            assertEquals(count, readOrRefused(() -> st.booleans(name).length, count), name);
        } else {
            refusedAsWrongDtype(() -> st.booleans(name).length);
        }
    }

    /** A read that may refuse an element (a U64 above Long.MAX_VALUE, a BOOL byte above 1). */
    private static long readOrRefused(Read read, long count) throws IOException {
        try {
            return read.length();
        } catch (TensorFormatException e) {
            Refusals.assertNamesSource(e, SOURCE);
            assertTrue(e.getMessage().contains("element "), e.getMessage());
            return count;
        }
    }

    private static void refusedAsWrongDtype(Read read) {
        TensorFormatException e = assertThrows(TensorFormatException.class, read::length);
        Refusals.assertNamesSource(e, SOURCE);
        assertTrue(e.getMessage().contains("has dtype"), e.getMessage());
    }

    @FunctionalInterface
    private interface Read {
        long length() throws IOException;
    }

    /** The caller-supplied {@link SafeTensors.Input} path, over the same bytes. */
    private static final class ArrayInput implements SafeTensors.Input {
        private final byte[] bytes;

        ArrayInput(byte[] bytes) {
            this.bytes = bytes;
        }

        @Override
        public long size() {
            return bytes.length;
        }

        @Override
        public void readFully(long position, ByteBuffer dst) throws IOException {
            if (position < 0 || position > bytes.length - (long) dst.remaining()) {
                throw new EOFException("end of data at byte " + bytes.length);
            }
            dst.put(bytes, (int) position, dst.remaining());
        }

        @Override
        public void close() {
            // The array belongs to the test.
        }
    }
}

package io.sparkattention.nn;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Arrays through byte streams: little-endian, every bit, any range, across the buffer's edges; short streams fail. */
class ArrayStreamsTest {

    @Test
    @DisplayName("floats, doubles and ints arrive with every bit, ranges across the 64 KiB buffer's edges included")
    void roundTrips() throws IOException {
        SplittableRandom random = new SplittableRandom(7);
        for (int n : new int[] {0, 1, 8191, 8192, 8193, 16383, 16384, 16385, 40_000}) {
            float[] f = new float[n + 5];
            double[] d = new double[n + 5];
            int[] i = new int[n + 5];
            for (int k = 0; k < f.length; k++) {
                f[k] = Float.intBitsToFloat(random.nextInt());
                d[k] = Double.longBitsToDouble(random.nextLong());
                i[k] = random.nextInt();
            }
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            ArrayStreams.writeFloats(bytes, f, 3, n);
            ArrayStreams.writeDoubles(bytes, d, 2, n);
            ArrayStreams.writeInts(bytes, i, 1, n);
            assertEquals(16L * n, bytes.size());
            ByteArrayInputStream in = new ByteArrayInputStream(bytes.toByteArray());
            float[] f2 = new float[n + 1];
            double[] d2 = new double[n];
            int[] i2 = new int[n];
            ArrayStreams.readFloats(in, f2, 1, n);
            ArrayStreams.readDoubles(in, d2, 0, n);
            ArrayStreams.readInts(in, i2, 0, n);
            for (int k = 0; k < n; k++) {
                assertEquals(Float.floatToRawIntBits(f[3 + k]), Float.floatToRawIntBits(f2[1 + k]));
                assertEquals(Double.doubleToRawLongBits(d[2 + k]), Double.doubleToRawLongBits(d2[k]));
            }
            assertArrayEquals(Arrays.copyOfRange(i, 1, 1 + n), i2);
        }
    }

    @Test
    @DisplayName("the bytes are little-endian IEEE values, and a stream that ends early is an EOFException")
    void formatAndShortStreams() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ArrayStreams.writeFloats(bytes, new float[] {1.5f, -2f}, 0, 2);
        ByteBuffer b = ByteBuffer.wrap(bytes.toByteArray()).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(1.5f, b.getFloat());
        assertEquals(-2f, b.getFloat());
        EOFException e = assertThrows(EOFException.class, () -> ArrayStreams.readFloats(
            new ByteArrayInputStream(bytes.toByteArray()), new float[3], 0, 3));
        assertEquals("stream ended 4 bytes before the array's end", e.getMessage());
    }
}

package io.sparkattention.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.EOFException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Safetensors content read through a caller's {@link SafeTensors.Input} (how a distributed file
 * system's stream is read), and stacked tensors written without a copy.
 */
class SafeTensorsInputTest {

    /** An in-memory input that counts how often it was opened. */
    private static SafeTensors.InputOpener memory(byte[] bytes, AtomicInteger opened) {
        return () -> {
            opened.incrementAndGet();
            return new SafeTensors.Input() {
                @Override
                public long size() {
                    return bytes.length;
                }

                @Override
                public void readFully(long position, ByteBuffer dst) throws EOFException {
                    if (position + dst.remaining() > bytes.length) {
                        throw new EOFException("end of data");
                    }
                    dst.put(bytes, (int) position, dst.remaining());
                }

                @Override
                public void close() {
                    // nothing held
                }
            };
        };
    }

    @Test
    void aCallersInputReadsTheSameTensorsAsAFileAndIsOpenedOncePerRead() throws Exception {
        float[] w = randomFloats(ElementReader.CHUNK_BYTES / 2);  // spans read chunks
        byte[] bytes = SafeTensorsWriter.toBytes(Map.of("w", Tensor.f32(w, 2, w.length / 2)), Map.of("k", "v"));
        AtomicInteger opened = new AtomicInteger();
        SafeTensors st = SafeTensors.read("hdfs://cluster/model.safetensors", memory(bytes, opened));
        assertEquals(1, opened.get(), "the header is read through one input");
        assertEquals("v", st.metadata().get("k"));
        assertArrayEquals(w, st.floats("w"));
        assertEquals(2, opened.get(), "each tensor read opens its own input");
    }

    @Test
    void truncatedContentFromACallersInputIsAFormatErrorNamingTheSource() throws Exception {
        byte[] bytes = SafeTensorsWriter.toBytes(Map.of("w", Tensor.f32(new float[] {1, 2, 3, 4}, 4)), null);
        byte[] truncated = Arrays.copyOf(bytes, bytes.length - 3);
        TensorFormatException e = assertThrows(TensorFormatException.class,
            () -> SafeTensors.read("s3a://bucket/w.safetensors", memory(truncated, new AtomicInteger())));
        assertTrue(e.getMessage().startsWith("s3a://bucket/w.safetensors"), e.getMessage());
    }

    @Test
    void aStackedTensorWritesTheBytesOfItsConcatenation() throws Exception {
        float[] a = randomFloats(5), b = randomFloats(ElementReader.CHUNK_BYTES / Float.BYTES + 3), c = randomFloats(1);
        float[] all = new float[a.length + b.length + c.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        System.arraycopy(c, 0, all, a.length + b.length, c.length);
        byte[] stacked = SafeTensorsWriter.toBytes(Map.of("x", Tensor.f32Stacked(new float[][] {a, b, c}, all.length)),
            null);
        byte[] concatenated = SafeTensorsWriter.toBytes(Map.of("x", Tensor.f32(all, all.length)), null);
        assertArrayEquals(concatenated, stacked);
        assertThrows(IllegalArgumentException.class, () -> Tensor.f32Stacked(new float[][] {a, c}, 7));
    }

    private static float[] randomFloats(int n) {
        Random r = new Random(n);
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = (float) r.nextGaussian();
        }
        return x;
    }
}

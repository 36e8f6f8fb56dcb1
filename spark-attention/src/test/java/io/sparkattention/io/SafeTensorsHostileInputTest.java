package io.sparkattention.io;

import static io.sparkattention.io.RawSafeTensors.entry;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every rule of the format is enforced when a file is opened, before any tensor is read; each
 * violation is a {@link TensorFormatException} naming the file and, where one is at fault, the
 * tensor. Sizes from the header are checked against the file's size before anything is allocated.
 */
class SafeTensorsHostileInputTest {

    @TempDir
    Path dir;

    /** Opening {@code file} fails; the message names the file and, when given, the tensor. */
    private TensorFormatException refused(Path file, String tensor, String expectedPhrase) {
        TensorFormatException e = assertThrows(TensorFormatException.class, () -> SafeTensors.read(file));
        assertEquals(file.toString(), e.source());
        assertTrue(e.getMessage().startsWith(file.toString() + ": "), e.getMessage());
        if (tensor == null) {
            assertNull(e.tensor(), e.getMessage());
        } else {
            assertEquals(tensor, e.tensor(), e.getMessage());
            assertTrue(e.getMessage().contains("tensor '" + tensor + "'"), e.getMessage());
        }
        assertTrue(e.getMessage().contains(expectedPhrase), () -> "'" + expectedPhrase + "' not in: " + e.getMessage());
        return e;
    }

    private Path file(String name, String header, byte[] data) throws Exception {
        return RawSafeTensors.write(dir.resolve(name), header, data);
    }

    @Test
    void aWellFormedHandWrittenFileOpens() throws Exception {
        Path f = file("ok.safetensors", "{" + entry("a", "F32", "[2]", 0, 8) + "," + entry("b", "F32", "[1]", 8, 12)
            + "}  ", RawSafeTensors.floats(1, 2, 3));
        SafeTensors st = SafeTensors.read(f);
        assertArrayEquals(new float[] {1, 2}, st.floats("a"));
        assertArrayEquals(new float[] {3}, st.floats("b"));
    }

    @Test
    void inputOutputFailuresNameTheFile() {
        Path missing = dir.resolve("missing.safetensors");
        IOException e = assertThrows(IOException.class, () -> SafeTensors.read(missing));
        assertTrue(e.getMessage().contains(missing.toString()), e.getMessage());
        IOException d = assertThrows(IOException.class, () -> SafeTensors.read(dir));
        assertTrue(d.getMessage().contains(dir.toString()), d.getMessage());
    }

    @Test
    void fileShorterThanTheLengthPrefix() throws Exception {
        Path f = dir.resolve("tiny.safetensors");
        Files.write(f, new byte[] {1, 2, 3});
        refused(f, null, "fewer than the 8-byte header length");
    }

    @Test
    void headerLengthLargerThanTheFile() throws Exception {
        String header = "{" + entry("a", "F32", "[1]", 0, 4) + "}";
        Path f = RawSafeTensors.write(dir.resolve("long.safetensors"), header.length() + 5, header, new byte[4]);
        refused(f, null, "header length " + (header.length() + 5) + " exceeds the " + (header.length() + 4) + " bytes");
    }

    @Test
    void headerLengthOfTwoToTheSixtyIsRefusedWithoutAllocating() throws Exception {
        Path f = RawSafeTensors.write(dir.resolve("huge.safetensors"), 1L << 60, "{}", new byte[0]);
        refused(f, null, "header length " + (1L << 60) + " exceeds");
    }

    @Test
    void headerLengthWithTheTopBitSetIsHugeNotNegative() throws Exception {
        Path f = RawSafeTensors.write(dir.resolve("neg.safetensors"), -1L, "{}", new byte[0]);
        refused(f, null, "header length 18446744073709551615 exceeds");
    }

    /** A file big enough to hold the claimed header (sparse, so it costs no disk) still hits the cap. */
    @Test
    void headerLengthAboveTheCapIsRefusedEvenWhenTheFileIsLargeEnough() throws Exception {
        Path f = dir.resolve("sparse.safetensors");
        long claimed = SafeTensors.MAX_HEADER_BYTES + 1;
        try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
            raf.write(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(claimed).array());
            raf.setLength(8 + claimed + 16);
        }
        refused(f, null, "exceeds the limit of " + SafeTensors.MAX_HEADER_BYTES);
    }

    @Test
    void truncatedDataNamesTheTensorThatReachesPastTheEnd() throws Exception {
        byte[] full = SafeTensorsWriter.toBytes(Map.of(
            "a", Tensor.f32(new float[] {1, 2}, 2),
            "b", Tensor.f32(new float[] {3, 4, 5}, 3)), null);
        Path f = dir.resolve("truncated.safetensors");
        Files.write(f, Arrays.copyOf(full, full.length - 3));
        refused(f, "b", "reach past the data section's 17 bytes");
    }

    @Test
    void truncatedInsideTheHeader() throws Exception {
        byte[] full = SafeTensorsWriter.toBytes(Map.of("a", Tensor.f32(new float[] {1}, 1)), null);
        Path f = dir.resolve("cut-header.safetensors");
        Files.write(f, Arrays.copyOf(full, 20));
        refused(f, null, "header length");
    }

    @Test
    void overlappingOffsets() throws Exception {
        Path f = file("overlap.safetensors",
            "{" + entry("a", "F32", "[2]", 0, 8) + "," + entry("b", "F32", "[2]", 4, 12) + "}", new byte[12]);
        refused(f, "b", "overlap tensor 'a' at [0, 8]");
    }

    @Test
    void twoTensorsSharingTheSameBytes() throws Exception {
        Path f = file("alias.safetensors", "{" + entry("a", "F32", "[2]", 0, 8) + "," + entry("b", "F32", "[2]", 0, 8)
            + "}", new byte[8]);
        refused(f, "b", "overlap tensor 'a'");
    }

    @Test
    void gapBetweenTensors() throws Exception {
        Path f = file("gap.safetensors", "{" + entry("a", "F32", "[1]", 0, 4) + "," + entry("b", "F32", "[1]", 8, 12)
            + "}", new byte[12]);
        refused(f, "b", "gap in the data section: bytes [4, 8) belong to no tensor (after tensor 'a')");
    }

    @Test
    void gapBeforeTheFirstTensor() throws Exception {
        Path f = file("lead.safetensors", "{" + entry("a", "F32", "[1]", 4, 8) + "}", new byte[8]);
        refused(f, "a", "before the first tensor");
    }

    @Test
    void trailingBytesAfterTheLastTensor() throws Exception {
        Path f = file("trailing.safetensors", "{" + entry("a", "F32", "[1]", 0, 4) + "}", new byte[9]);
        refused(f, null, "5 trailing bytes belong to no tensor");
    }

    @Test
    void byteSizeDifferentFromShapeTimesWidth() throws Exception {
        Path f = file("size.safetensors", "{" + entry("w", "F32", "[2,3]", 0, 20) + "}", new byte[20]);
        refused(f, "w", "span 20 bytes, but shape [2, 3] of F32 (4 bytes each) needs 24");
    }

    @Test
    void duplicateTensorNames() throws Exception {
        Path f = file("dup.safetensors", "{" + entry("w", "F32", "[1]", 0, 4) + "," + entry("w", "F32", "[1]", 4, 8)
            + "}", new byte[8]);
        refused(f, "w", "duplicate tensor name");
    }

    @Test
    void duplicateKeyInsideAnEntry() throws Exception {
        Path f = file("dupkey.safetensors",
            "{\"w\":{\"dtype\":\"F32\",\"dtype\":\"I64\",\"shape\":[1],\"data_offsets\":[0,4]}}", new byte[4]);
        refused(f, "w", "Duplicate field 'dtype'");
    }

    @Test
    void unknownDtype() throws Exception {
        Path f = file("dtype.safetensors", "{" + entry("w", "F7", "[1]", 0, 4) + "}", new byte[4]);
        refused(f, "w", "unknown dtype 'F7'");
    }

    @Test
    void negativeDimension() throws Exception {
        Path f = file("negdim.safetensors", "{" + entry("w", "F32", "[-1,4]", 0, 4) + "}", new byte[4]);
        refused(f, "w", "'shape' must hold non-negative 64-bit integers, found -1");
    }

    @Test
    void fractionalOrTextualDimensions() throws Exception {
        refused(file("frac.safetensors", "{" + entry("w", "F32", "[1.5]", 0, 4) + "}", new byte[4]), "w",
            "'shape' must hold integers");
        refused(file("text.safetensors", "{" + entry("w", "F32", "[\"1\"]", 0, 4) + "}", new byte[4]), "w",
            "'shape' must hold integers");
        refused(file("big.safetensors", "{" + entry("w", "F32", "[18446744073709551616]", 0, 4) + "}", new byte[4]),
            "w", "non-negative 64-bit integers");
    }

    @Test
    void shapeProductOverflow() throws Exception {
        Path f = file("overflow.safetensors", "{" + entry("w", "F32", "[4294967296,4294967296]", 0, 0) + "}",
            new byte[0]);
        refused(f, "w", "more bytes than a 64-bit count can express");
    }

    @Test
    void byteSizeOverflowAfterMultiplyingByTheWidth() throws Exception {
        Path f = file("overflow2.safetensors", "{" + entry("w", "F64", "[2305843009213693952]", 0, 0) + "}",
            new byte[0]);
        refused(f, "w", "more bytes than a 64-bit count can express");
    }

    @Test
    void nonObjectJson() throws Exception {
        refused(file("array.safetensors", "[1,2,3]", new byte[0]), null,
            "header is not a JSON object (it starts with '[')");
        refused(file("string.safetensors", "\"x\"", new byte[0]), null, "header is not a JSON object");
        refused(file("entry.safetensors", "{\"w\":[1,2]}", new byte[0]), "w", "header entry must be a JSON object");
    }

    @Test
    void malformedJsonAndTextAfterTheObject() throws Exception {
        refused(file("broken.safetensors", "{\"w\":", new byte[0]), null, "not valid JSON");
        refused(file("after.safetensors", "{} {}", new byte[0]), null, "text after its JSON object");
    }

    @Test
    void invalidUtf8Header() throws Exception {
        Path f = dir.resolve("latin1.safetensors");
        byte[] header = {'{', '"', (byte) 0xE9, '"', ':', '1', '}', ' '};
        ByteBuffer b = ByteBuffer.allocate(8 + header.length).order(ByteOrder.LITTLE_ENDIAN);
        Files.write(f, b.putLong(header.length).put(header).array());
        refused(f, null, "not valid UTF-8");
    }

    @Test
    void emptyHeader() throws Exception {
        Path f = RawSafeTensors.write(dir.resolve("empty.safetensors"), 0, "", new byte[0]);
        refused(f, null, "header is empty");
    }

    @Test
    void missingOrMalformedFieldsOfAnEntry() throws Exception {
        refused(file("nodtype.safetensors", "{\"w\":{\"shape\":[1],\"data_offsets\":[0,4]}}", new byte[4]), "w",
            "'dtype' must be a string, found nothing");
        refused(file("noshape.safetensors", "{\"w\":{\"dtype\":\"F32\",\"data_offsets\":[0,4]}}", new byte[4]), "w",
            "'shape' must be a JSON array");
        refused(file("threeoffsets.safetensors", "{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4,8]}}",
            new byte[4]), "w", "'data_offsets' must hold 2 integers, found 3");
        refused(file("backwards.safetensors", "{" + entry("w", "F32", "[1]", 4, 0) + "}", new byte[4]), "w",
            "end before they begin");
    }

    @Test
    void metadataMustMapStringsToStrings() throws Exception {
        refused(file("meta1.safetensors", "{\"__metadata__\":{\"epochs\":3}}", new byte[0]), null,
            "value of key 'epochs' must be a string");
        refused(file("meta2.safetensors", "{\"__metadata__\":[\"a\"]}", new byte[0]), null,
            "'__metadata__' must be a JSON object");
        Path nullMetadata = file("meta3.safetensors", "{\"__metadata__\":null}", new byte[0]);
        assertTrue(SafeTensors.read(nullMetadata).metadata().isEmpty(), "null metadata is no metadata");
    }

    @Test
    void tensorTooLargeForAJavaArrayOpensButIsReadInParts() throws Exception {
        // A zero dimension keeps the data empty while the other dimensions would overflow an int.
        Path f = file("wide.safetensors", "{" + entry("z", "F32", "[0,4294967296]", 0, 0) + "}", new byte[0]);
        SafeTensors st = SafeTensors.read(f);
        assertEquals(0, st.floats("z").length);
        TensorFormatException e = assertThrows(TensorFormatException.class, () -> st.intShape("z"));
        assertEquals("z", e.tensor());
    }
}

package io.sparkattention.examples.common;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.CRC32;

/**
 * Marks a PNG as written by this tool with a {@code tEXt} chunk {@code Software: spark-attention}
 * right after the header chunk (PNG's registered keyword for the creating software), and
 * recognises the mark, so {@code --overwrite} replaces only pictures this tool drew.
 */
public final class PngMark {

    /** PNG's 8-byte signature. */
    private static final byte[] SIGNATURE = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    /** Signature (8) plus the IHDR chunk: length (4), type (4), 13 data bytes, CRC (4). */
    private static final int AFTER_HEADER = 8 + 4 + 4 + 13 + 4;
    /** The chunk's data: keyword, NUL separator, text. */
    private static final byte[] TEXT = "Software\0spark-attention".getBytes(StandardCharsets.ISO_8859_1);

    private PngMark() {
    }

    /**
     * Writes a picture as a marked PNG, in one write: encoded in memory, the mark inserted, then
     * the file written.
     *
     * @param image the picture
     * @param file  where it goes (a staged output: {@link StagedOutput#localPath})
     */
    public static void write(BufferedImage image, Path file) throws IOException {
        ByteArrayOutputStream png = new ByteArrayOutputStream();
        if (!ImageIO.write(image, "png", png)) {
            throw new IOException("no PNG writer for this image type");
        }
        Files.write(file, mark(png.toByteArray()));
    }

    /**
     * The picture with the mark inserted after its header chunk.
     *
     * @param png a PNG file's bytes
     * @return the marked bytes
     * @throws IllegalArgumentException when the bytes are not a PNG
     */
    public static byte[] mark(byte[] png) {
        if (!isPng(png)) {
            throw new IllegalArgumentException("not a PNG image");
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(png.length + TEXT.length + 12);
        out.write(png, 0, AFTER_HEADER);
        out.writeBytes(chunk());
        out.write(png, AFTER_HEADER, png.length - AFTER_HEADER);
        return out.toByteArray();
    }

    /**
     * Whether the head of a file is a marked PNG: the mark is the second chunk.
     *
     * @param head the file's first bytes (at least its first two chunks' worth)
     */
    public static boolean isMarked(byte[] head) {
        byte[] chunk = chunk();
        return isPng(head) && head.length >= AFTER_HEADER + chunk.length
            && Arrays.equals(head, AFTER_HEADER, AFTER_HEADER + chunk.length, chunk, 0, chunk.length);
    }

    private static boolean isPng(byte[] bytes) {
        return bytes.length > AFTER_HEADER && Arrays.equals(bytes, 0, SIGNATURE.length, SIGNATURE, 0, SIGNATURE.length)
            && bytes[12] == 'I' && bytes[13] == 'H' && bytes[14] == 'D' && bytes[15] == 'R';
    }

    /** Length, type {@code tEXt}, data, and the CRC-32 of type and data, as PNG's chunk layout says. */
    private static byte[] chunk() {
        byte[] type = "tEXt".getBytes(StandardCharsets.ISO_8859_1);
        CRC32 crc = new CRC32();
        crc.update(type);
        crc.update(TEXT);
        return ByteBuffer.allocate(12 + TEXT.length).putInt(TEXT.length).put(type).put(TEXT).putInt((int) crc.getValue())
            .array();
    }
}

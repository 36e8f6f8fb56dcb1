package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.OutputKind;
import io.sparkattention.examples.common.OutputSwap;
import io.sparkattention.examples.common.PngMark;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How outputs are marked, recognised and swapped in, without Spark. */
class OutputMarksTest {

    @TempDir
    Path dir;

    private static byte[] png() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ImageIO.write(new BufferedImage(3, 2, BufferedImage.TYPE_INT_RGB), "png", out);
        return out.toByteArray();
    }

    @Test
    @DisplayName("a marked PNG is still a valid picture, is recognised, and an unmarked one is not")
    void pngMark() throws IOException {
        byte[] plain = png();
        byte[] marked = PngMark.mark(plain);
        BufferedImage image = ImageIO.read(new ByteArrayInputStream(marked));
        assertNotNull(image, "the marked bytes decode");
        assertEquals(3, image.getWidth());
        assertTrue(PngMark.isMarked(marked));
        assertFalse(PngMark.isMarked(plain));
        assertFalse(PngMark.isMarked("not a picture".getBytes()));
        assertThrows(IllegalArgumentException.class, () -> PngMark.mark("GIF89a".getBytes()));
    }

    @Test
    @DisplayName("a JSON lines output is recognised by its first record's output column, however long the record")
    void jsonLinesKind() throws IOException {
        OutputKind kind = OutputKind.jsonLines("attn_output");
        String longMatrix = "[" + "[0.5,0.25],".repeat(2000) + "[1,2]]";
        Path ours = Files.writeString(dir.resolve("ours.jsonl"), "{\"query\":" + longMatrix + ",\"attn_output\":[[1]]}\n");
        assertNull(kind.whyNotOurs(ours));
        assertNull(kind.whyNotOurs(Files.writeString(dir.resolve("empty.jsonl"), "")));
        assertTrue(kind.whyNotOurs(Files.writeString(dir.resolve("mine.jsonl"), "{\"query\":[[1]]}\n"))
            .contains("not a JSON record with the column attn_output"));
        assertTrue(kind.whyNotOurs(Files.writeString(dir.resolve("text.jsonl"), "attn_output\n")) != null);
        assertEquals("it is a directory, and this output is a file",
            kind.whyNotOurs(Files.createDirectories(dir.resolve("d.jsonl"))));
    }

    @Test
    @DisplayName("a directory and a file are replaced whole, with nothing hidden left beside them")
    void swapReplacesWhole() throws IOException {
        Path output = Files.createDirectories(dir.resolve("out"));
        Files.writeString(output.resolve("old-part"), "old");
        Path staged = Files.createDirectories(Path.of(OutputSwap.hidden(OutputSwap.LOCAL, output.toString(), "tmp")));
        Files.writeString(staged.resolve("new-part"), "new");
        OutputSwap.publish(OutputSwap.LOCAL, staged.toString(), output.toString());
        assertEquals(List.of("new-part"), Cli.listNames(output));
        assertEquals(List.of("out"), Cli.listNames(dir), "nothing hidden left beside it");

        Path file = Files.writeString(dir.resolve("out.jsonl"), "old\n");
        Path stagedFile = Files.writeString(Path.of(OutputSwap.hidden(OutputSwap.LOCAL, file.toString(), "tmp")), "new\n");
        OutputSwap.publish(OutputSwap.LOCAL, stagedFile.toString(), file.toString());
        assertEquals("new\n", Files.readString(file));
        assertEquals(List.of("out", "out.jsonl"), Cli.listNames(dir));
    }

    static boolean sharedMemoryIsAnotherFileSystem() throws IOException {
        Path shm = Path.of("/dev/shm");
        return Files.isDirectory(shm) && Files.isWritable(shm)
            && !Files.getFileStore(shm).equals(Files.getFileStore(Path.of(System.getProperty("java.io.tmpdir"))));
    }

    /**
     * A staged directory on another file system cannot be renamed in atomically: the swap fails
     * after the earlier output was renamed aside, which must then be put back.
     */
    @Test
    @DisplayName("when the new output cannot be renamed in, the earlier output is put back in place")
    @EnabledIf("sharedMemoryIsAnotherFileSystem")
    void failedSwapRestoresTheEarlierOutput() throws IOException {
        Path output = Files.createDirectories(dir.resolve("out"));
        Files.writeString(output.resolve("old-part"), "old");
        Path elsewhere = Files.createTempDirectory(Path.of("/dev/shm"), "staged");
        try {
            Files.writeString(elsewhere.resolve("other-part"), "other");
            assertThrows(IOException.class, () -> OutputSwap.publish(OutputSwap.LOCAL, elsewhere.toString(), output.toString()));
            assertEquals(List.of("old-part"), Cli.listNames(output), "the earlier output is back in place");
            assertEquals(List.of("out"), Cli.listNames(dir), "nothing hidden left beside it");
        } finally {
            OutputSwap.LOCAL.delete(elsewhere.toString());
        }
    }
}

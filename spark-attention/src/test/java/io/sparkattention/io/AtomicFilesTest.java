package io.sparkattention.io;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class AtomicFilesTest {

    @TempDir
    Path dir;

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private List<String> names() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
        }
    }

    @Test
    @DisplayName("a new file gets the whole content and no temporary file is left beside it")
    void writesNewFile() throws IOException {
        Path file = dir.resolve("weights.bin");
        AtomicFiles.write(file, out -> out.write(utf8("new content")));
        assertArrayEquals(utf8("new content"), Files.readAllBytes(file));
        assertEquals(List.of("weights.bin"), names());
    }

    @Test
    @DisplayName("an existing file is replaced by the new content, not appended to")
    void replacesExistingFile() throws IOException {
        Path file = dir.resolve("page.html");
        Files.write(file, utf8("an older and longer content"));
        AtomicFiles.write(file, out -> out.write(utf8("short")));
        assertArrayEquals(utf8("short"), Files.readAllBytes(file));
        assertEquals(List.of("page.html"), names());
    }

    @Test
    @DisplayName("a failing writer leaves the old file unchanged and removes its temporary file")
    void failedWriteKeepsOldContent() throws IOException {
        Path file = dir.resolve("tensor.npy");
        Files.write(file, utf8("old"));
        IOException thrown = assertThrows(IOException.class, () -> AtomicFiles.write(file, out -> {
            out.write(utf8("half of the new"));
            throw new IOException("disk full");
        }));
        assertEquals("disk full", thrown.getMessage());
        assertArrayEquals(utf8("old"), Files.readAllBytes(file));
        assertEquals(List.of("tensor.npy"), names());
    }

    @Test
    @DisplayName("without an atomic rename the target is still replaced whole and no temporary file is left")
    void fallsBackWhenAtomicMoveIsNotSupported() throws IOException {
        Path file = dir.resolve("picture.png");
        Files.write(file, utf8("old picture"));
        AtomicFiles.write(file, out -> out.write(utf8("new picture")), (source, target) -> {
            throw new AtomicMoveNotSupportedException(source.toString(), target.toString(), "not here");
        });
        assertArrayEquals(utf8("new picture"), Files.readAllBytes(file));
        assertEquals(List.of("picture.png"), names());
    }

    @Test
    @DisplayName("a failing rename leaves the old file unchanged and removes the temporary file")
    void failedRenameKeepsOldContent() throws IOException {
        Path file = dir.resolve("model.safetensors");
        Files.write(file, utf8("old"));
        assertThrows(IOException.class, () -> AtomicFiles.write(file, out -> out.write(utf8("new")),
            (source, target) -> {
                throw new IOException("rename refused");
            }));
        assertArrayEquals(utf8("old"), Files.readAllBytes(file));
        assertEquals(List.of("model.safetensors"), names());
    }

    @Test
    @DisplayName("a missing directory is an error naming it, and nothing is created")
    void missingDirectoryIsNamed() {
        Path missing = dir.resolve("no-such-dir");
        NoSuchFileException thrown = assertThrows(NoSuchFileException.class,
            () -> AtomicFiles.write(missing.resolve("out.bin"), out -> out.write(1)));
        assertTrue(thrown.getMessage().contains("no-such-dir"), thrown.getMessage());
        assertTrue(Files.notExists(missing));
    }

    @Test
    @DisplayName("the written file is readable by others as the umask allows, not owner-only")
    void permissionsFollowTheUmask() throws IOException {
        assumeTrue(FileSystems.getDefault().supportedFileAttributeViews().contains("posix"));
        Path file = dir.resolve("shared.bin");
        Path plain = dir.resolve("plain.bin");
        Files.write(plain, utf8("x"));
        AtomicFiles.write(file, out -> out.write(utf8("x")));
        Set<PosixFilePermission> expected = Files.getPosixFilePermissions(plain);
        assertEquals(expected, Files.getPosixFilePermissions(file));
    }
}

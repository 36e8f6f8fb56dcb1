package io.sparkattention.examples.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * Publishes a local output written beside its final place: a hidden staging sibling in the same
 * directory (one file system, so renames are atomic) is renamed onto the output. A file replaces
 * an earlier one in one rename; a directory cannot, so the earlier one is first renamed aside,
 * the new one renamed in, and the old one deleted. A failure at any point leaves the old output
 * or the new one, never a mixture.
 */
final class OutputSwap {

    private OutputSwap() {
    }

    /**
     * A fresh hidden path beside {@code output} for {@code what} ({@code tmp} while writing,
     * {@code old} for an output being replaced).
     */
    static Path sibling(Path output, String what) {
        return output.resolveSibling("." + output.getFileName() + "." + what + "-" + UUID.randomUUID());
    }

    /** Writes the marker of an output directory of {@code command} (see {@link OutputKind}). */
    static void mark(Path directory, String command) throws IOException {
        Files.writeString(directory.resolve(OutputKind.MARKER), OutputKind.markerText(command), StandardCharsets.UTF_8);
    }

    /**
     * Renames {@code staged} onto {@code output}, replacing an earlier output.
     *
     * @param staged the complete new output, a sibling of {@code output}
     * @param output the output's path
     * @throws IOException if a rename fails; the earlier output is then back in place
     */
    static void publish(Path staged, Path output) throws IOException {
        if (!Files.isDirectory(staged, LinkOption.NOFOLLOW_LINKS)
            || !Files.exists(output, LinkOption.NOFOLLOW_LINKS)) {
            Files.move(staged, output, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            return;
        }
        Path old = sibling(output, "old");
        Files.move(output, old, StandardCopyOption.ATOMIC_MOVE);
        try {
            Files.move(staged, output, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            Files.move(old, output, StandardCopyOption.ATOMIC_MOVE);
            throw e;
        }
        deleteRecursively(old);
    }

    /** Deletes a file or directory tree if it exists; symbolic links are deleted, not followed. */
    static void deleteRecursively(Path path) throws IOException {
        if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(path)) {
            for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** {@link #deleteRecursively}, for clean-up after a failure: a second error must not hide the first. */
    static void deleteQuietly(Path path) {
        try {
            deleteRecursively(path);
        } catch (IOException e) {
            // The failure being reported matters more than a leftover hidden sibling.
        }
    }
}

package io.sparkattention.examples.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/** Snapshots of directory trees, to show that a refused command changed nothing. */
final class Trees {

    private Trees() {
    }

    /** Every entry below {@code root} (relative path → file bytes as text, or "dir" / "link"). */
    static Map<String, String> snapshot(Path root) {
        Map<String, String> tree = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : (Iterable<Path>) walk::iterator) {
                String key = root.relativize(p).toString();
                tree.put(key, Files.isSymbolicLink(p) ? "link -> " + Files.readSymbolicLink(p)
                    : Files.isDirectory(p) ? "dir" : Files.readString(p, java.nio.charset.StandardCharsets.ISO_8859_1));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return tree;
    }

    /** Copies the tree at {@code from} to {@code to} (which must not exist). */
    static void copy(Path from, Path to) {
        try (Stream<Path> walk = Files.walk(from)) {
            for (Path p : (Iterable<Path>) walk::iterator) {
                Files.copy(p, to.resolve(from.relativize(p).toString()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

package io.sparkattention.examples.common;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * The rename-aside protocol every output is published with, written once over two stores: the
 * local file system (java.nio, atomic renames) and any Hadoop file system ({@code hdfs://},
 * {@code s3a://}). The new output is complete in a hidden sibling (same directory, so same file
 * system): when nothing is at the output it is renamed in; otherwise the earlier output is first
 * renamed aside, the new one renamed in, and the old one deleted; if renaming in fails the
 * earlier output is renamed back. A failure at any point leaves the old output or the new one,
 * never a mixture.
 */
public final class OutputSwap {

    /** What the protocol needs of a file system; paths are the store's own strings. */
    public interface Store {
        boolean exists(String path) throws IOException;

        /** Renames a path that exists onto one that does not; fails rather than copies. */
        void rename(String from, String to) throws IOException;

        /** Deletes a file or a directory tree if it exists (a symbolic link itself, not its target). */
        void delete(String path) throws IOException;

        /** Creates a directory and its missing parents. */
        void mkdirs(String path) throws IOException;

        /** Writes a new file with {@code text}. */
        void write(String path, String text) throws IOException;

        /** A path in directory {@code dir}. */
        String child(String dir, String name);

        /** The sibling of {@code path} named {@code name}. */
        String sibling(String path, String name);

        /** The last name of {@code path}. */
        String name(String path);
    }

    private OutputSwap() {
    }

    /** A fresh hidden name beside {@code path} for {@code what} ({@code tmp} while writing, {@code old} aside). */
    public static String hidden(Store store, String path, String what) {
        return store.sibling(path, "." + store.name(path) + "." + what + "-" + UUID.randomUUID());
    }

    /**
     * Renames {@code staged} onto {@code output}, replacing an earlier output.
     *
     * @param staged the complete new output, a sibling of {@code output}
     * @throws IOException if a rename fails; the earlier output is then back in place, or, if even
     *                     that fails, the message names the hidden path that holds it
     */
    public static void publish(Store store, String staged, String output) throws IOException {
        if (!store.exists(output)) {
            store.rename(staged, output);
            return;
        }
        String old = hidden(store, output, "old");
        store.rename(output, old);
        try {
            store.rename(staged, output);
        } catch (IOException | RuntimeException e) {
            try {
                store.rename(old, output);
            } catch (IOException | RuntimeException restore) {
                IOException lost = new IOException("could not publish " + output + " (" + e.getMessage()
                    + "), nor put its earlier version back: it is kept at " + old, e);
                lost.addSuppressed(restore);
                throw lost;
            }
            throw e;
        }
        store.delete(old);
    }

    /** {@link Store#delete}, for clean-up after a failure: a second error must not hide the first. */
    public static void deleteQuietly(Store store, String path) {
        try {
            store.delete(path);
        } catch (IOException | RuntimeException e) {
            // The failure being reported matters more than a leftover hidden sibling.
        }
    }

    /** The local file system: java.nio, renames atomic within a directory. */
    public static final Store LOCAL = new Store() {
        @Override
        public boolean exists(String path) {
            return Files.exists(Paths.get(path), LinkOption.NOFOLLOW_LINKS);
        }

        @Override
        public void rename(String from, String to) throws IOException {
            Files.move(Paths.get(from), Paths.get(to), StandardCopyOption.ATOMIC_MOVE);
        }

        @Override
        public void delete(String path) throws IOException {
            Path p = Paths.get(path);
            if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
                return;
            }
            if (!Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                Files.deleteIfExists(p);
                return;
            }
            try (Stream<Path> walk = Files.walk(p)) {
                for (Path q : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                    Files.deleteIfExists(q);
                }
            }
        }

        @Override
        public void mkdirs(String path) throws IOException {
            Files.createDirectories(Paths.get(path));
        }

        @Override
        public void write(String path, String text) throws IOException {
            Files.writeString(Paths.get(path), text, StandardCharsets.UTF_8);
        }

        @Override
        public String child(String dir, String name) {
            return Paths.get(dir).resolve(name).toString();
        }

        @Override
        public String sibling(String path, String name) {
            return Paths.get(path).resolveSibling(name).toString();
        }

        @Override
        public String name(String path) {
            return Paths.get(path).getFileName().toString();
        }
    };

    /**
     * A Hadoop file system, the one that holds {@code path} under {@code conf} (the local one
     * without its checksum layer, which would leave {@code .crc} files beside the output).
     */
    public static Store hadoop(String path, Configuration conf) throws IOException {
        FileSystem found = new org.apache.hadoop.fs.Path(path).getFileSystem(conf);
        FileSystem fs = found instanceof LocalFileSystem ? ((LocalFileSystem) found).getRawFileSystem() : found;
        return new Store() {
            @Override
            public boolean exists(String p) throws IOException {
                return fs.exists(new org.apache.hadoop.fs.Path(p));
            }

            @Override
            public void rename(String from, String to) throws IOException {
                if (!fs.rename(new org.apache.hadoop.fs.Path(from), new org.apache.hadoop.fs.Path(to))) {
                    throw new IOException("cannot rename " + from + " to " + to);
                }
            }

            @Override
            public void delete(String p) throws IOException {
                fs.delete(new org.apache.hadoop.fs.Path(p), true);
            }

            @Override
            public void mkdirs(String p) throws IOException {
                fs.mkdirs(new org.apache.hadoop.fs.Path(p));
            }

            @Override
            public void write(String p, String text) throws IOException {
                try (OutputStream out = fs.create(new org.apache.hadoop.fs.Path(p), false)) {
                    out.write(text.getBytes(StandardCharsets.UTF_8));
                }
            }

            @Override
            public String child(String dir, String name) {
                return new org.apache.hadoop.fs.Path(dir, name).toString();
            }

            @Override
            public String sibling(String p, String name) {
                return new org.apache.hadoop.fs.Path(new org.apache.hadoop.fs.Path(p).getParent(), name).toString();
            }

            @Override
            public String name(String p) {
                return new org.apache.hadoop.fs.Path(p).getName();
            }

            /** The Hadoop file system itself, for writers that need it (concatenating part files). */
            @Override
            public String toString() {
                return fs.getUri().toString();
            }
        };
    }
}

package io.sparkattention.io;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import java.util.UUID;

/**
 * Writes a file so that readers see either the old content or the complete new one, never a
 * partial file, and so that the new content survives a crash once {@link #write} returns.
 *
 * <ol>
 *   <li>The bytes go to a hidden temporary file in the target's directory (the same file system,
 *       so the rename below is atomic) and are forced to disk.</li>
 *   <li>The temporary file is renamed over the target with {@code ATOMIC_MOVE}. Where the file
 *       system cannot rename atomically, a plain move replaces the target instead (a rename, or a
 *       copy and a delete), and the target is forced to disk again. That fallback keeps the
 *       content complete once the call returns, but a reader during the call may see the target
 *       missing or being copied.</li>
 *   <li>The directory is forced to disk, so the rename itself is durable. This step is best
 *       effort: platforms and file systems that cannot open or sync a directory skip it.</li>
 * </ol>
 *
 * <p>The temporary file is created with {@code CREATE_NEW}, which honours the umask, rather than
 * with {@code Files.createTempFile}, whose owner-only permissions the renamed file would keep
 * (executors running as another user could not read it). It is deleted whenever the write fails.
 */
public final class AtomicFiles {

    /** Produces the file's content. */
    @FunctionalInterface
    public interface Content {
        /**
         * Writes the whole content.
         *
         * @param out the temporary file's stream; closed by {@link AtomicFiles}
         * @throws IOException to abandon the write, leaving the target as it was
         */
        void writeTo(OutputStream out) throws IOException;
    }

    /** Renames the temporary file over the target; a parameter so that tests can refuse it. */
    @FunctionalInterface
    interface AtomicMove {
        void move(Path source, Path target) throws IOException;
    }

    /** The file system's atomic rename. */
    static final AtomicMove FILE_SYSTEM = (source, target) ->
        Files.move(source, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);

    private AtomicFiles() {
    }

    /**
     * Writes {@code target} through a temporary file renamed into place.
     *
     * @param target  the file to create or replace; its directory must exist
     * @param content what to write
     * @throws NoSuchFileException naming the directory when it does not exist
     * @throws IOException         when the file cannot be written; the target is then unchanged
     */
    public static void write(Path target, Content content) throws IOException {
        write(target, content, FILE_SYSTEM);
    }

    static void write(Path target, Content content, AtomicMove atomicMove) throws IOException {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(content, "content");
        Path absolute = target.toAbsolutePath();
        Path dir = absolute.getParent();
        if (dir == null || !Files.isDirectory(dir)) {
            throw new NoSuchFileException(String.valueOf(dir), null, "the directory of " + absolute + " does not exist");
        }
        Path temp = dir.resolve("." + absolute.getFileName() + "." + UUID.randomUUID() + ".tmp");
        boolean done = false;
        try {
            try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                OutputStream out = Channels.newOutputStream(channel);
                content.writeTo(out);
                out.flush();
                channel.force(true);
            }
            try {
                atomicMove.move(temp, absolute);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, absolute, StandardCopyOption.REPLACE_EXISTING);
                force(absolute);
            }
            done = true;
            forceDirectory(dir);
        } finally {
            if (!done) {
                Files.deleteIfExists(temp);
            }
        }
    }

    private static void force(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.force(true);
        }
    }

    /** Forces a directory's entries to disk where the platform can open and sync a directory. */
    private static void forceDirectory(Path dir) {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException e) {
            // Windows cannot open a directory as a channel, and some network file systems refuse
            // to sync one; the file's own content is already on disk.
        }
    }
}

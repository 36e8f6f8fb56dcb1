package io.sparkattention.io;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.UUID;

/**
 * Writes a file so that readers see either the old content or the complete new one, never a
 * partial file: the bytes go to a hidden temporary file in the same directory (same file system,
 * so the rename is atomic), are forced to disk, then renamed over the target.
 */
final class AtomicFiles {

    /** Produces the file's content. */
    @FunctionalInterface
    interface Content {
        void writeTo(OutputStream out) throws IOException;
    }

    private AtomicFiles() {
    }

    static void write(Path target, Content content) throws IOException {
        Path absolute = target.toAbsolutePath();
        Path dir = absolute.getParent();
        // Not Files.createTempFile: it creates mode 0600, which the renamed file would keep, and
        // executors running as another user could not read the weights.
        Path temp = dir.resolve("." + absolute.getFileName() + "." + UUID.randomUUID() + ".tmp");
        boolean done = false;
        try {
            try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE)) {
                OutputStream out = Channels.newOutputStream(channel);
                content.writeTo(out);
                out.flush();
                channel.force(true);
            }
            Files.move(temp, absolute, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            done = true;
        } finally {
            if (!done) {
                Files.deleteIfExists(temp);
            }
        }
    }
}

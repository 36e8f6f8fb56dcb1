package io.sparkattention.viz;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;

/**
 * Writes a file under a temporary name in the target's directory, then renames it into place, so
 * readers (and a crash) never see a half-written picture.
 */
final class AtomicFiles {

    /** What writes the content. */
    interface Writer {
        void write(OutputStream out) throws IOException;
    }

    private static final SecureRandom RANDOM = new SecureRandom();

    private AtomicFiles() {
    }

    static void write(Path target, Writer writer) throws IOException {
        Path absolute = target.toAbsolutePath();
        Path dir = absolute.getParent();
        // Same directory as the target, so the rename cannot cross file systems. Not createTempFile:
        // its owner-only permissions would stick to the result; CREATE_NEW honours the umask.
        Path temp = dir.resolve("." + absolute.getFileName() + "." + Long.toHexString(RANDOM.nextLong()) + ".tmp");
        try {
            try (OutputStream out = Files.newOutputStream(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                writer.write(out);
            }
            try {
                Files.move(temp, absolute, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, absolute, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temp);
        }
    }
}

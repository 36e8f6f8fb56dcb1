package io.sparkattention.examples.scaling;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/** Writes a PNG under a temporary name next to the target, then renames it: never half-written. */
final class PngFile {

    private PngFile() {
    }

    static void write(BufferedImage image, Path file) throws IOException {
        Path target = file.toAbsolutePath();
        Path temp = target.resolveSibling("." + target.getFileName() + "." + ProcessHandle.current().pid() + ".tmp");
        try {
            try (OutputStream out = Files.newOutputStream(temp, StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
                if (!ImageIO.write(image, "png", out)) {
                    throw new IOException("no PNG writer in this JVM");
                }
            }
            try {
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temp);
        }
    }
}

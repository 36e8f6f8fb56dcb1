package io.sparkattention.exec;

import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Test-only fault injection for row generators: exactly one call in the whole cluster throws,
 * either the first call of all ({@link Mode#FIRST_CALL}) or the first call that generates a row a
 * second time ({@link Mode#FIRST_RECOMPUTATION}: a lost partition being recomputed). "First" is
 * decided by atomically creating marker files in a directory all executors of this machine see,
 * so exactly one task attempt fails and its retry succeeds.
 */
final class RowFault implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Which call throws. */
    enum Mode { FIRST_CALL, FIRST_RECOMPUTATION }

    private static final String FIRED = "fired";

    private final Mode mode;
    private final String markerDir;

    RowFault(Mode mode, Path markerDir) {
        this.mode = mode;
        this.markerDir = markerDir.toAbsolutePath().toString();
    }

    /** Throws when this call for row {@code rowId} is the one chosen to fail. */
    void check(long rowId) {
        if (mode == Mode.FIRST_RECOMPUTATION && createMarker("row-" + rowId)) {
            return;  // the row's first generation
        }
        if (createMarker(FIRED)) {
            throw new IllegalStateException("injected fault (" + mode + ") while generating row " + rowId);
        }
    }

    /** Whether the fault has fired. */
    static boolean fired(Path markerDir) {
        return Files.exists(markerDir.resolve(FIRED));
    }

    /** Creates the marker; false when it already existed. */
    private boolean createMarker(String name) {
        try {
            Files.createFile(Paths.get(markerDir, name));
            return true;
        } catch (FileAlreadyExistsException e) {
            return false;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

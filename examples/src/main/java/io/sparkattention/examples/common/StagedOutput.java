package io.sparkattention.examples.common;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * One output of a run, written in a hidden staging directory beside its final place and then
 * published whole ({@link OutputSwap}) or discarded. {@link #path()} is where the command writes:
 * the output's own name inside the staging directory, not created yet (Spark's writers and
 * {@code MLWriter.save} create a directory themselves; a file is simply written there). Anything
 * the writer leaves beside it in the staging directory (a Hadoop {@code .crc} file, part files
 * before they are concatenated: {@link #scratch}) goes with the staging directory. An output
 * directory gets this tool's marker ({@link OutputKind#MARKER}) as it is published. Made and
 * checked by {@link Outputs}.
 */
public final class StagedOutput {

    final String option;
    final String given;
    final OutputKind kind;
    /** The resolved local path ({@link OutputGuard#check}), or null for an output on another file system. */
    final Path local;
    private OutputSwap.Store store;
    private String target;
    private String stagingDir;
    private boolean published;

    public StagedOutput(String option, String given, OutputKind kind, Path local) {
        this.option = option;
        this.given = given;
        this.kind = kind;
        this.local = local;
        if (local != null) {
            store = OutputSwap.LOCAL;
            target = local.toString();
        }
    }

    /** Sets the store of an output on another file system, once Spark's Hadoop configuration is known. */
    public void onStore(OutputSwap.Store remote) {
        store = remote;
        target = given;
    }

    public boolean isRemote() {
        return local == null;
    }

    /** The output's final path, as the store names it. */
    public String target() {
        return target;
    }

    public OutputSwap.Store store() {
        if (store == null) {
            throw new IllegalStateException(option + " " + given + " is on another file system: its store is set once "
                + "Spark runs (Outputs.attach)");
        }
        return store;
    }

    /** Where to write the output: the staging directory is created on the first call. */
    public String path() {
        return store().child(stagingDir(), store.name(target));
    }

    /** {@link #path()} as a URI, for writers that take one ({@code file:/...} for a local output). */
    public String uri() {
        return local != null ? Paths.get(path()).toUri().toString() : path();
    }

    /** {@link #path()} of a local output, for writers that take a java.nio path. */
    public Path localPath() {
        if (local == null) {
            throw new BadInputException(option + " " + given + ": this command writes to the local file system only; "
                + "write locally and copy the result");
        }
        return Paths.get(path());
    }

    /** A path beside the staged output, deleted with it (e.g. Spark's part files before they are joined). */
    public String scratch(String name) {
        return store().child(stagingDir(), "_" + name);
    }

    private String stagingDir() {
        if (stagingDir == null) {
            String dir = OutputSwap.hidden(store(), target, "tmp");
            try {
                store.mkdirs(dir);
            } catch (IOException e) {
                throw new BadInputException(option + " " + given + ": cannot create the staging directory " + dir + " ("
                    + e.getMessage() + ")", e);
            }
            stagingDir = dir;
        }
        return stagingDir;
    }

    /**
     * Puts the written output in place of any earlier one (saying so on stderr: {@link ReplacedOutput}),
     * then removes the staging directory.
     *
     * @throws IOException if it cannot be renamed in; the earlier output is then back in place
     */
    public void publish(String command) throws IOException {
        String staged = path();
        if (kind.isDirectory()) {
            if (!store.exists(staged)) {
                store.mkdirs(staged);
            }
            store.write(store.child(staged, OutputKind.MARKER),
                ReplacedOutput.markerText(command, local != null ? Paths.get(staged) : null));
        }
        if (store.exists(target)) {
            System.err.println(ReplacedOutput.notice(command, option, given, local));
            System.err.flush();
        }
        OutputSwap.publish(store, staged, target);
        published = true;
        discard();
    }

    /** Removes the staging directory (and what was written in it), quietly. */
    public void discard() {
        if (stagingDir != null) {
            OutputSwap.deleteQuietly(store, stagingDir);
        }
    }

    public boolean isPublished() {
        return published;
    }

    /** The output as the user named it. */
    public String given() {
        return given;
    }

    /** The resolved local path where the output is published, or null for an output on another file system. */
    public Path local() {
        return local;
    }

    /** The output as the user named it, for messages. */
    @Override
    public String toString() {
        return given;
    }

}

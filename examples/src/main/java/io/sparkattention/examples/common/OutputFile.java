package io.sparkattention.examples.common;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A local JSON lines file written by a command outside this package (bench's {@code --write-ids})
 * through the same output handle as every other output ({@link Outputs}): checked before it is
 * written, written in a staging directory, put in place whole, discarded on failure.
 */
public final class OutputFile {

    /** Writes the staged file. */
    public interface Writer {
        void write(Path staged) throws IOException;
    }

    private OutputFile() {
    }

    /**
     * Writes one JSON lines output.
     *
     * @param command the command, for the output's marker and messages
     * @param option  the option naming the output, e.g. {@code --write-ids}
     * @param path    the path given
     * @param column  a column every line holds (how an earlier output of this tool is recognised)
     */
    public static void writeJsonLines(String command, String option, String path, String column, Writer writer)
        throws IOException {
        try (Outputs out = new Outputs(command, false).add(option, path, OutputKind.jsonLines(column)).localOnly()
            .check()) {
            writer.write(out.main().localPath());
            out.publish();
        }
    }
}

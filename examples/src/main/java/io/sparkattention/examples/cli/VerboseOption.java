package io.sparkattention.examples.cli;

import picocli.CommandLine.Option;

/**
 * {@code --verbose}, the same in every command that runs Spark: without it the run's stderr holds
 * the command's own message only ({@link QuietLogs}).
 */
public final class VerboseOption {

    @Option(names = "--verbose", description = "Keep Spark's own log output on stderr.")
    boolean verbose;

    /** Quiets Spark's logs for the run, unless {@code --verbose}. */
    QuietLogs quietLogs() {
        return QuietLogs.unless(verbose);
    }
}

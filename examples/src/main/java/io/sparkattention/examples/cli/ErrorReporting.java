package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import picocli.CommandLine;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.FileSystemException;
import java.util.Locale;

/**
 * Turns failures into the command-line contract: bad input is one line on stderr and exit code
 * {@value #BAD_INPUT}; anything else is a bug and gets its stack trace and exit code 1.
 */
final class ErrorReporting {

    /** Exit code for bad input or usage. */
    static final int BAD_INPUT = 2;

    private ErrorReporting() {
    }

    static int onUsageError(CommandLine.ParameterException e, String[] args) {
        PrintWriter err = e.getCommandLine().getErr();
        err.println(prefix(e.getCommandLine()) + oneLine(e.getMessage()));
        err.flush();
        return BAD_INPUT;
    }

    static int onExecutionError(Exception e, CommandLine cmd, CommandLine.ParseResult parsed) {
        PrintWriter err = cmd.getErr();
        Throwable input = inputError(e);
        if (input != null) {
            err.println(prefix(cmd) + oneLine(describe(input)));
            err.flush();
            return BAD_INPUT;
        }
        err.println(prefix(cmd) + "internal error: " + e);
        e.printStackTrace(err);
        err.flush();
        return 1;
    }

    /** The cause chain's bad-input error, if any. */
    private static Throwable inputError(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof BadInputException || t instanceof IllegalArgumentException
                || t instanceof FileNotFoundException || t instanceof FileSystemException
                || t instanceof IOException && t.getClass().getName().startsWith("io.sparkattention")
                || t.getClass().getName().equals("org.apache.spark.sql.AnalysisException")) {
                return t;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return null;
    }

    private static String describe(Throwable t) {
        if (t instanceof FileSystemException) {
            FileSystemException f = (FileSystemException) t;
            String reason = f.getReason() != null ? f.getReason()
                : t.getClass().getSimpleName().replace("Exception", "").replaceAll("([a-z])([A-Z])", "$1 $2")
                    .toLowerCase(Locale.ROOT);
            return f.getFile() + ": " + reason;
        }
        return t.getMessage() == null ? t.toString() : t.getMessage();
    }

    private static String prefix(CommandLine cmd) {
        return cmd.getCommandName().equals("spark-attention") ? "spark-attention: "
            : "spark-attention " + cmd.getCommandName() + ": ";
    }

    /** Error messages are one line: the contract for scripts that read stderr. */
    static String oneLine(String message) {
        String m = message == null ? "" : message.strip();
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl).strip();
    }
}

package io.sparkattention.examples.cli;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.config.Configurator;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Keeps stderr to the command's own message while a command runs Spark: a bad row
 * makes Spark log the failed task at ERROR and WARN from several classes, and the contract is one
 * line. Spark's console progress bar is turned off for the same reason. {@code --verbose} keeps
 * it all. Levels are restored on close (tests run commands in one JVM).
 */
final class QuietLogs implements AutoCloseable {

    private static final String PROGRESS_BAR = "spark.ui.showConsoleProgress";

    private final Map<String, Level> previous = new LinkedHashMap<>();

    private QuietLogs() {
    }

    /** Quiets Spark (before it starts, so its start-up warnings go too) unless {@code verbose}. */
    static QuietLogs unless(boolean verbose) {
        QuietLogs quiet = new QuietLogs();
        if (!verbose) {
            if (System.getProperty(PROGRESS_BAR) == null) {
                System.setProperty(PROGRESS_BAR, "false");
            }
            quiet.set(LogManager.ROOT_LOGGER_NAME, Level.OFF);
            quiet.set("io.sparkattention", Level.WARN);
        }
        return quiet;
    }

    private void set(String logger, Level level) {
        previous.put(logger, LogManager.getLogger(logger).getLevel());
        Configurator.setLevel(logger, level);
    }

    @Override
    public void close() {
        previous.forEach(Configurator::setLevel);
    }
}

package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.SparkSessions;
import io.sparkattention.examples.common.Outputs;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Option;

/**
 * {@code --master}, the same in every command that runs Spark: a mixin that starts the run's
 * session ({@link SparkSessions}) and hands it to the run's {@link Outputs}, which check an
 * output on another file system once Spark's Hadoop configuration is known.
 */
public final class MasterOption {

    @Option(names = "--master", paramLabel = "URL",
        description = "Spark master: local[*] (the default, in this JVM), local[N], spark://host:port, yarn...")
    String master;

    /** The master as given, null for the default. */
    public String get() {
        return master;
    }

    /** Starts (or returns the running) session for {@code spark-attention command}. */
    SparkSession start(String command) {
        return SparkSessions.start("spark-attention " + command, master);
    }

    /** Starts the session and attaches the run's outputs to it. */
    SparkSession start(String command, Outputs outputs) {
        SparkSession spark = start(command);
        outputs.attach(spark);
        return spark;
    }
}

package io.sparkattention.testing;

import org.apache.spark.sql.SparkSession;

/**
 * The one SparkSession of a test JVM (starting one costs seconds; later ones would share its
 * SparkContext anyway). Stopped by a shutdown hook.
 */
public final class SparkTestSession {

    private static SparkSession session;

    private SparkTestSession() {
    }

    public static synchronized SparkSession get() {
        if (session == null) {
            session = SparkSession.builder()
                .master("local[2]")
                .appName("spark-attention tests")
                .config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", "4")
                // As the command line's sessions: running tasks report their accumulators every 2 s.
                .config("spark.executor.heartbeatInterval", "2s")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .getOrCreate();
            session.sparkContext().setLogLevel("WARN");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> session.stop()));
        }
        return session;
    }
}

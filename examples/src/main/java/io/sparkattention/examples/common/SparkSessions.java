package io.sparkattention.examples.common;

import org.apache.spark.sql.SparkSession;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Properties;

/**
 * The SparkSession of a command-line run: an embedded {@code local[*]} by default, or the master
 * given with {@code --master}. Settings come from {@code $SPARK_CONF_DIR/spark-defaults.conf}
 * (the launcher points it at the project's {@code conf/}); explicit {@code spark.*} system
 * properties and {@code --master} win over the file.
 */
public final class SparkSessions {

    /** Master used when none is given. */
    public static final String DEFAULT_MASTER = "local[*]";
    /**
     * How often executors report to the driver, unless set: their heartbeats carry the row counts
     * of running tasks that progress lines show ({@code cli.RowProgress}); Spark's default is 10 s.
     */
    static final String HEARTBEAT_INTERVAL = "2s";
    private static final String HEARTBEAT = "spark.executor.heartbeatInterval";

    private SparkSessions() {
    }

    /** The master a session started with {@code master} (null for the default) runs on. */
    public static String masterFor(String master) {
        return master != null ? master : System.getProperty("spark.master", DEFAULT_MASTER);
    }

    /**
     * Starts (or returns the running) session.
     *
     * @param appName shown in Spark's UI and logs
     * @param master  {@code local[*]}, {@code local[N]}, {@code spark://host:port}...; null for the default
     */
    public static SparkSession start(String appName, String master) {
        SparkSession.Builder builder = SparkSession.builder().appName(appName);
        Properties defaults = defaults();
        for (String key : defaults.stringPropertyNames()) {
            if (System.getProperty(key) == null) {
                builder.config(key, defaults.getProperty(key).trim());
            }
        }
        if (System.getProperty(HEARTBEAT) == null && defaults.getProperty(HEARTBEAT) == null) {
            builder.config(HEARTBEAT, HEARTBEAT_INTERVAL);
        }
        String chosen = masterFor(master);
        builder.master(chosen);
        if (!chosen.startsWith("local")) {
            shipLibraryJars(builder);
        }
        return builder.getOrCreate();
    }

    /**
     * On a cluster the executors need this project's classes: ship the jar this code runs from
     * (the examples jar), the library jar next to it on the class path and the encoder's jars, unless
     * {@code spark.jars} was set explicitly (spark-submit sets it).
     */
    private static void shipLibraryJars(SparkSession.Builder builder) {
        if (System.getProperty("spark.jars") != null) {
            return;
        }
        StringBuilder jars = new StringBuilder();
        for (String entry : System.getProperty("java.class.path", "").split(java.io.File.pathSeparator)) {
            String name = Paths.get(entry).getFileName() == null ? "" : Paths.get(entry).getFileName().toString();
            if (name.endsWith(".jar") && (name.startsWith("spark-attention") || isEncoderJar(entry))) {
                if (jars.length() > 0) {
                    jars.append(',');
                }
                jars.append(Paths.get(entry).toAbsolutePath());
            }
        }
        if (jars.length() > 0) {
            builder.config("spark.jars", jars.toString());
        }
    }

    /**
     * The jars the encoder commands need on executors that Spark does not bring: Hugging Face's
     * tokenizers through DJL (with its native library), DJL's API and JNA, and the bundled model.
     */
    private static boolean isEncoderJar(String entry) {
        String path = entry.replace('\\', '/');
        return path.contains("/ai/djl/") || path.contains("/net/java/dev/jna/") || path.contains("/dev/langchain4j/");
    }

    private static Properties defaults() {
        Properties props = new Properties();
        String dir = System.getenv("SPARK_CONF_DIR");
        if (dir == null) {
            return props;
        }
        Path file = Paths.get(dir, "spark-defaults.conf");
        if (!Files.isRegularFile(file)) {
            return props;
        }
        // spark-defaults.conf is whitespace-separated key/value lines, which Properties reads.
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            props.load(reader);
        } catch (IOException e) {
            throw new BadInputException(file + ": cannot read Spark defaults: " + e.getMessage(), e);
        }
        return props;
    }
}

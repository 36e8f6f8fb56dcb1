package io.sparkattention.exec;

import org.apache.spark.sql.SparkSession;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * The SparkSession of the integration tests: {@code local-cluster[2,1,1024]}, a standalone master
 * and two workers inside this JVM that start two executors as separate JVMs (one core, 1 GiB
 * each), so tasks really run elsewhere, results really cross process boundaries, and an executor
 * can be killed. One per test JVM, stopped by a shutdown hook.
 *
 * <p>The executors are launched by Spark's own launcher, which needs {@code SPARK_HOME} with a
 * {@code jars} directory and {@code SPARK_SCALA_VERSION} in the environment (failsafe sets both;
 * the directory may be empty) and takes the whole class path from
 * {@code spark.executor.extraClassPath}: this JVM's test class path.
 */
final class ClusterTestSession {

    /** Executors (workers) of the cluster. */
    static final int EXECUTORS = 2;

    private static SparkSession session;

    private ClusterTestSession() {
    }

    static synchronized SparkSession get() {
        if (session == null) {
            String sparkHome = System.getenv("SPARK_HOME");
            if (sparkHome == null || System.getenv("SPARK_SCALA_VERSION") == null) {
                throw new IllegalStateException("the integration tests need SPARK_HOME and SPARK_SCALA_VERSION in the "
                    + "environment (the failsafe configuration in the parent pom.xml sets them)");
            }
            try {
                Files.createDirectories(Paths.get(sparkHome, "jars"));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            session = SparkSession.builder()
                .master("local-cluster[" + EXECUTORS + ",1,1024]")
                .appName("spark-attention integration tests")
                .config("spark.executor.extraClassPath", testClassPath())
                .config("spark.executor.memory", "1g")
                .config("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
                .config("spark.ui.enabled", "false")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.executorEnv.OPENBLAS_NUM_THREADS", "1")
                .getOrCreate();
            session.sparkContext().setLogLevel("WARN");
            awaitExecutors(session, EXECUTORS);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> session.stop()));
        }
        return session;
    }

    /** Blocks until {@code n} executors are registered (executors start asynchronously). */
    static void awaitExecutors(SparkSession spark, int n) {
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (spark.sparkContext().statusTracker().getExecutorInfos().length - 1 < n) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(n + " executors did not register within 120 s");
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    /** Surefire and failsafe may start the test JVM from a manifest-only jar; the real path is in this property. */
    private static String testClassPath() {
        String cp = System.getProperty("surefire.test.class.path");
        if (cp == null || cp.isEmpty()) {
            cp = System.getProperty("java.class.path");
        }
        StringBuilder absolute = new StringBuilder();
        for (String entry : cp.split(File.pathSeparator)) {
            if (!entry.isEmpty()) {
                if (absolute.length() > 0) {
                    absolute.append(File.pathSeparator);
                }
                absolute.append(Path.of(entry).toAbsolutePath());
            }
        }
        return absolute.toString();
    }
}

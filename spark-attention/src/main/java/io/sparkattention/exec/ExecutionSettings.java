package io.sparkattention.exec;

import org.apache.spark.sql.SparkSession;

import java.io.Serializable;

/**
 * The execution layer's tunables, read from the session's Spark configuration when a stage is
 * applied ({@code spark.conf.set(...)}, {@code --conf} or spark-defaults.conf). None of them
 * changes the numbers a strategy computes: they change how the work is cut and spread.
 */
public final class ExecutionSettings implements Serializable {

    private static final long serialVersionUID = 1L;

    /**
     * Query rows and key rows per {@link Strategy#SEQUENCE} unit (default 8192). A unit holds
     * its query block, key block and value block and its partial output:
     * {@code (2·B·d + 2·B·dv)·4} bytes, 8 MiB at B = 8192 and d = dv = 64, plus its B×B slice of a
     * boolean mask or bias when the row has one. Smaller blocks spread one head over more tasks but
     * ship more data: every query block meets every key block, so a head of L×S sends about
     * {@code L·S·(2d + dv)·4 / B} bytes through the shuffle.
     */
    public static final String SEQUENCE_BLOCK_ROWS = "spark.attention.sequence.blockRows";
    /** Default of {@link #SEQUENCE_BLOCK_ROWS}. */
    public static final int DEFAULT_SEQUENCE_BLOCK_ROWS = 8192;

    /**
     * Tasks per core of the unit stages of {@link Strategy#HEAD} and {@link Strategy#SEQUENCE}
     * (default 4): more, smaller tasks balance better and lose less work when an executor dies;
     * fewer cost less scheduling.
     */
    public static final String TASKS_PER_CORE = "spark.attention.exec.tasksPerCore";
    /** Default of {@link #TASKS_PER_CORE}. */
    public static final int DEFAULT_TASKS_PER_CORE = 4;

    /**
     * Explicit number of partitions of the unit stages; 0 (default) means
     * {@code defaultParallelism × tasksPerCore}. Keep it at most
     * {@code spark.shuffle.sort.bypassMergeThreshold} (200) so that map tasks stream their units
     * to disk instead of buffering them.
     */
    public static final String UNIT_PARTITIONS = "spark.attention.exec.unitPartitions";

    /**
     * {@link Strategy#AUTO} never shuffles a job whose total work, counted in attention scores
     * {@code Σ rows H·L·S}, is below this (default 2^28 ≈ 2.7·10^8 scores, a few seconds of one
     * core at d = 64): the shuffles would cost more than the parallelism gains.
     */
    public static final String AUTO_MIN_SHUFFLE_SCORES = "spark.attention.auto.minShuffleScores";
    /** Default of {@link #AUTO_MIN_SHUFFLE_SCORES}. */
    public static final long DEFAULT_AUTO_MIN_SHUFFLE_SCORES = 1L << 28;

    /**
     * {@link Strategy#AUTO} takes the simplest strategy whose estimated run time is within this
     * factor of the work spread perfectly over every core (default 1.25).
     */
    public static final String AUTO_IMBALANCE = "spark.attention.auto.imbalance";
    /** Default of {@link #AUTO_IMBALANCE}. */
    public static final double DEFAULT_AUTO_IMBALANCE = 1.25;

    private final int sequenceBlockRows;
    private final int tasksPerCore;
    private final int unitPartitions;
    private final long autoMinShuffleScores;
    private final double autoImbalance;

    /** Settings with explicit values (tests, and {@link #from}). */
    public ExecutionSettings(int sequenceBlockRows, int tasksPerCore, int unitPartitions, long autoMinShuffleScores,
                             double autoImbalance) {
        this.sequenceBlockRows = check(SEQUENCE_BLOCK_ROWS, sequenceBlockRows, 1);
        this.tasksPerCore = check(TASKS_PER_CORE, tasksPerCore, 1);
        this.unitPartitions = check(UNIT_PARTITIONS, unitPartitions, 0);
        if (autoMinShuffleScores < 0) {
            throw new IllegalArgumentException(AUTO_MIN_SHUFFLE_SCORES + " must be >= 0, got " + autoMinShuffleScores);
        }
        if (!(autoImbalance >= 1)) {
            throw new IllegalArgumentException(AUTO_IMBALANCE + " must be >= 1, got " + autoImbalance);
        }
        this.autoMinShuffleScores = autoMinShuffleScores;
        this.autoImbalance = autoImbalance;
    }

    /** The defaults. */
    public static ExecutionSettings defaults() {
        return new ExecutionSettings(DEFAULT_SEQUENCE_BLOCK_ROWS, DEFAULT_TASKS_PER_CORE, 0,
            DEFAULT_AUTO_MIN_SHUFFLE_SCORES, DEFAULT_AUTO_IMBALANCE);
    }

    /** The settings of {@code spark}'s configuration, defaults where unset. */
    public static ExecutionSettings from(SparkSession spark) {
        return new ExecutionSettings(
            intConf(spark, SEQUENCE_BLOCK_ROWS, DEFAULT_SEQUENCE_BLOCK_ROWS),
            intConf(spark, TASKS_PER_CORE, DEFAULT_TASKS_PER_CORE),
            intConf(spark, UNIT_PARTITIONS, 0),
            longConf(spark, AUTO_MIN_SHUFFLE_SCORES, DEFAULT_AUTO_MIN_SHUFFLE_SCORES),
            doubleConf(spark, AUTO_IMBALANCE, DEFAULT_AUTO_IMBALANCE));
    }

    /** Rows per query block and per key block of a sequence unit. */
    public int sequenceBlockRows() {
        return sequenceBlockRows;
    }

    public int tasksPerCore() {
        return tasksPerCore;
    }

    public long autoMinShuffleScores() {
        return autoMinShuffleScores;
    }

    public double autoImbalance() {
        return autoImbalance;
    }

    /** Partitions of the unit stages on a cluster of {@code parallelism} cores. */
    public int unitPartitions(int parallelism) {
        if (unitPartitions > 0) {
            return unitPartitions;
        }
        return (int) Math.min(Integer.MAX_VALUE, Math.max(1L, (long) parallelism * tasksPerCore));
    }

    private static int check(String key, int value, int min) {
        if (value < min) {
            throw new IllegalArgumentException(key + " must be >= " + min + ", got " + value);
        }
        return value;
    }

    private static int intConf(SparkSession spark, String key, int fallback) {
        String v = spark.conf().get(key, null);
        try {
            return v == null ? fallback : Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be an integer, got " + v, e);
        }
    }

    private static long longConf(SparkSession spark, String key, long fallback) {
        String v = spark.conf().get(key, null);
        try {
            return v == null ? fallback : Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be an integer, got " + v, e);
        }
    }

    private static double doubleConf(SparkSession spark, String key, double fallback) {
        String v = spark.conf().get(key, null);
        try {
            return v == null ? fallback : Double.parseDouble(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be a number, got " + v, e);
        }
    }

    @Override
    public String toString() {
        return SEQUENCE_BLOCK_ROWS + "=" + sequenceBlockRows + ", " + TASKS_PER_CORE + "=" + tasksPerCore + ", "
            + UNIT_PARTITIONS + "=" + unitPartitions + ", " + AUTO_MIN_SHUFFLE_SCORES + "=" + autoMinShuffleScores
            + ", " + AUTO_IMBALANCE + "=" + autoImbalance;
    }
}

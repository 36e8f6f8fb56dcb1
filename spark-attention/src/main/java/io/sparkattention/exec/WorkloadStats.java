package io.sparkattention.exec;

import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.countDistinct;
import static org.apache.spark.sql.functions.floor;
import static org.apache.spark.sql.functions.greatest;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.size;
import static org.apache.spark.sql.functions.spark_partition_id;
import static org.apache.spark.sql.functions.sum;

/**
 * The size of an attention workload as {@link AutoStrategy} sees it: how many rows, in how many
 * partitions, and how many attention scores (query × key pairs) per head in total and in the
 * largest row. Work is counted in scores because every strategy does about {@code 4·d} flops per
 * score; masks are ignored (a causal row does about half).
 */
public final class WorkloadStats {

    private final long rows;
    private final int partitions;
    private final int heads;
    private final double headScores;
    private final double maxHeadScores;
    private final long maxQueryLength;
    private final long maxKeyLength;

    /**
     * @param rows           rows with a non-null query
     * @param partitions     non-empty input partitions
     * @param heads          attention heads per row
     * @param headScores     Σ over rows of L·S (one head)
     * @param maxHeadScores  max over rows of L·S
     * @param maxQueryLength max L
     * @param maxKeyLength   max S
     */
    public WorkloadStats(long rows, int partitions, int heads, double headScores, double maxHeadScores,
                         long maxQueryLength, long maxKeyLength) {
        if (rows < 0 || partitions < 0 || heads < 1 || headScores < 0 || maxHeadScores < 0) {
            throw new IllegalArgumentException("bad workload: rows=" + rows + ", partitions=" + partitions
                + ", heads=" + heads + ", scores=" + headScores + ", max=" + maxHeadScores);
        }
        this.rows = rows;
        this.partitions = partitions;
        this.heads = heads;
        this.headScores = headScores;
        this.maxHeadScores = maxHeadScores;
        this.maxQueryLength = maxQueryLength;
        this.maxKeyLength = maxKeyLength;
    }

    /** {@code rows} equal rows of L×S with {@code heads} heads, in {@code partitions} partitions. */
    public static WorkloadStats uniform(long rows, int partitions, int heads, long queryLength, long keyLength) {
        double perRow = (double) queryLength * keyLength;
        return new WorkloadStats(rows, partitions, heads, rows * perRow, rows == 0 ? 0 : perRow,
            rows == 0 ? 0 : queryLength, rows == 0 ? 0 : keyLength);
    }

    /**
     * Measures {@code df} with one aggregation job over the outer sizes of the query and key
     * columns (the matrices themselves are not decoded).
     */
    public static WorkloadStats measure(Dataset<Row> df, AttentionJob job) {
        Column queryLength = length(df, job.queryColumn(), job.queryPositionWidth());
        Column keyLength = length(df, job.keyColumn(), job.keyPositionWidth());
        Row r = df.select(queryLength.as("l"), keyLength.as("s"), spark_partition_id().as("p"),
                col(AttentionExecution.quote(job.queryColumn())).isNotNull().as("present"))
            .where(col("present"))
            .agg(count(lit(1)), sum(col("l").cast("double").multiply(col("s").cast("double"))),
                max(col("l").cast("double").multiply(col("s").cast("double"))), max(col("l")), max(col("s")),
                countDistinct(col("p")))
            .first();
        long rows = r.getLong(0);
        if (rows == 0) {
            return new WorkloadStats(0, 0, Math.max(1, job.numHeads()), 0, 0, 0, 0);
        }
        return new WorkloadStats(rows, (int) r.getLong(5), Math.max(1, job.numHeads()), r.getDouble(1),
            r.getDouble(2), r.getInt(3), r.getInt(4));
    }

    /**
     * Positions of a sequence column: its outer array size (divided by {@code width} when the
     * column is flat, {@code width} > 0), 0 for null.
     */
    private static Column length(Dataset<Row> df, String column, int width) {
        Column size = greatest(coalesce(size(df.col(AttentionExecution.quote(column))), lit(0)), lit(0));
        return width > 0 ? floor(size.divide(width)).cast("int") : size;
    }

    public long rows() {
        return rows;
    }

    public int partitions() {
        return partitions;
    }

    public int heads() {
        return heads;
    }

    /** Total work: Σ H·L·S. */
    public double totalScores() {
        return headScores * heads;
    }

    /** The largest row's work: H·max L·S. */
    public double maxRowScores() {
        return maxHeadScores * heads;
    }

    /** The largest (row, head)'s work: max L·S. */
    public double maxHeadScores() {
        return maxHeadScores;
    }

    public long maxQueryLength() {
        return maxQueryLength;
    }

    public long maxKeyLength() {
        return maxKeyLength;
    }

    @Override
    public String toString() {
        return String.format("%d rows in %d partitions, %d heads, %.3g scores (largest row %.3g, max L %d, max S %d)",
            rows, partitions, heads, totalScores(), maxRowScores(), maxQueryLength, maxKeyLength);
    }
}

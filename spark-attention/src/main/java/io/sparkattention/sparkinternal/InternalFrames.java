package io.sparkattention.sparkinternal;

import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructType;

/**
 * A DataFrame as an RDD of its Catalyst rows, and such an RDD back as a DataFrame, with no
 * conversion to {@link Row} and back in either direction ({@code Dataset.rdd} and
 * {@code createDataFrame} would convert every row).
 */
public final class InternalFrames {

    private InternalFrames() {
    }

    /** {@code df}'s rows as Spark executes them ({@code queryExecution().toRdd()}; plans {@code df}). */
    public static RDD<InternalRow> rows(Dataset<?> df) {
        return df.queryExecution().toRdd();
    }

    /**
     * A DataFrame over {@code rows} ({@code classic.SparkSession.internalCreateDataFrame}).
     *
     * @param like   a DataFrame of the session to create it in
     * @param rows   Catalyst rows matching {@code schema}
     * @param schema the rows' schema
     */
    public static Dataset<Row> frame(Dataset<?> like, RDD<InternalRow> rows, StructType schema) {
        org.apache.spark.sql.classic.SparkSession spark = (org.apache.spark.sql.classic.SparkSession) like.sparkSession();
        return spark.internalCreateDataFrame(rows, schema, false);
    }
}

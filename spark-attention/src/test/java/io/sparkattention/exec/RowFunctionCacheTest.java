package io.sparkattention.exec;

import io.sparkattention.ml.ScaledDotProductAttention;
import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Row-function columns and Spark's cache: a persisted result is found again by later queries. */
class RowFunctionCacheTest {

    private final SparkSession spark = SparkTestSession.get();

    @Test
    @DisplayName("the same row-function column over the same data is the same result: a second DataFrame finds the first's cache")
    void equalPlansShareTheCache() {
        Column matrix = GeneratedMatrix.column(col("id"), 3, 4, 8);
        Dataset<Row> cached = spark.range(0, 2, 1, 2).withColumn("query", matrix).persist(StorageLevel.MEMORY_ONLY());
        try {
            cached.count();
            Dataset<Row> again = spark.range(0, 2, 1, 2).withColumn("query", matrix);
            String plan = again.queryExecution().withCachedData().toString();
            assertTrue(plan.contains("InMemoryRelation"), plan);
            Dataset<Row> other = spark.range(0, 2, 1, 2).withColumn("query", GeneratedMatrix.column(col("id"), 4, 4, 8));
            String otherPlan = other.queryExecution().withCachedData().toString();
            assertFalse(otherPlan.contains("InMemoryRelation"), "another function is another result: " + otherPlan);
        } finally {
            cached.unpersist(true);
        }
    }

    @Test
    @DisplayName("a persisted input computed by a row function is read from the cache by the attention stage")
    void persistedGeneratedInputIsReused() {
        Dataset<Row> input = spark.range(0, 2, 1, 2)
            .withColumn("query", GeneratedMatrix.column(col("id"), 3, 4, 8))
            .persist(StorageLevel.MEMORY_ONLY());
        try {
            input.count();
            Dataset<Row> out = new ScaledDotProductAttention().setNumHeads(2).transform(input);
            String plan = out.queryExecution().withCachedData().toString();
            assertTrue(plan.contains("InMemoryRelation"), plan);
        } finally {
            input.unpersist(true);
        }
    }
}

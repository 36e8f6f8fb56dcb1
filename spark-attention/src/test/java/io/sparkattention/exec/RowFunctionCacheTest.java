package io.sparkattention.exec;

import io.sparkattention.ml.ScaledDotProductAttention;
import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.storage.StorageLevel;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Row-function columns and Spark's cache: a persisted result is found again by later queries. */
class RowFunctionCacheTest {

    private final SparkSession spark = SparkTestSession.get();

    /** Two ids, two partitions. */
    private Dataset<Row> ids() {
        return spark.range(0, 2, 1, 2).toDF();
    }

    private static boolean readsCache(Dataset<Row> query) {
        return query.queryExecution().withCachedData().toString().contains("InMemoryRelation");
    }

    @Test
    @DisplayName("a second DataFrame with the same row-function column finds the first's cache; another instance does not")
    void equalPlansShareTheCache() {
        Column matrix = GeneratedMatrix.column(col("id"), 3, 4, 8);
        Dataset<Row> cached = ids().withColumn("query", matrix).persist(StorageLevel.MEMORY_ONLY());
        try {
            cached.count();
            assertTrue(readsCache(ids().withColumn("query", matrix)));
            assertFalse(readsCache(ids().withColumn("query", GeneratedMatrix.column(col("id"), 3, 4, 8))));
        } finally {
            cached.unpersist(true);
        }
    }

    @Test
    @DisplayName("a persisted input computed by a row function is read from the cache by the attention stage")
    void persistedGeneratedInputIsReused() {
        Dataset<Row> input = ids().withColumn("query", GeneratedMatrix.column(col("id"), 3, 4, 8))
            .persist(StorageLevel.MEMORY_ONLY());
        try {
            input.count();
            assertTrue(readsCache(new ScaledDotProductAttention().setNumHeads(2).transform(input)));
        } finally {
            input.unpersist(true);
        }
    }

    @Test
    @DisplayName("copies rebuilt with equal children are equal, with equal hashes; a different function is not equal")
    void copiesAreEqual() {
        RowFunction function = inputs -> null;
        RowFunctionExpression expression = expression(function);
        Expression copy = expression.withNewChildrenInternal(expression(function).children().toIndexedSeq());
        assertTrue(copy != expression);
        assertEquals(expression, copy);
        assertEquals(expression.hashCode(), copy.hashCode());
        assertEquals(expression.canonicalized(), copy.canonicalized());
        assertEquals(expression.semanticHash(), copy.semanticHash());
        assertNotEquals(expression, expression(inputs -> null));
    }

    private static RowFunctionExpression expression(RowFunction function) {
        return new RowFunctionExpression(List.of(Literal.create(7L, DataTypes.LongType)), null, function,
            DataTypes.LongType, "f");
    }
}

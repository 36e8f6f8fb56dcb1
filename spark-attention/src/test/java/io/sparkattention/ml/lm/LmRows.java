package io.sparkattention.ml.lm;

import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The language model tests' data frames: rows of {@code id} and {@code input_ids} in a given partitioning. */
final class LmRows {

    static final StructType SCHEMA = new StructType().add("id", DataTypes.LongType)
        .add("input_ids", DataTypes.createArrayType(DataTypes.IntegerType, true));

    private LmRows() {
    }

    /** Rows {@code id}, {@code input_ids} in the given order, split into {@code partitions} runs of consecutive rows. */
    static Dataset<Row> frame(int[][] ids, long[] order, int partitions) {
        List<Row> rows = new ArrayList<>();
        for (long id : order) {
            int[] r = ids[(int) id];
            rows.add(RowFactory.create(id, r));
        }
        JavaSparkContext sc = JavaSparkContext.fromSparkContext(SparkTestSession.get().sparkContext());
        return SparkTestSession.get().createDataFrame(sc.parallelize(rows, partitions), SCHEMA);
    }

    /** Rows in id order. */
    static Dataset<Row> frame(int[][] ids, int partitions) {
        long[] order = new long[ids.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        return frame(ids, order, partitions);
    }

    /** Each row's value of {@code column}, by id, as collected. */
    static Map<Long, Object> byId(Dataset<Row> rows, String column) {
        Map<Long, Object> out = new TreeMap<>();
        for (Row r : rows.select("id", column).collectAsList()) {
            Object v = r.get(1);
            out.put(r.getLong(0), v instanceof scala.collection.Seq<?> s
                ? scala.jdk.javaapi.CollectionConverters.asJava(s) : v);
        }
        return out;
    }
}

package io.sparkattention.examples.cli;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.JoinedRow;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.IntegralType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The command line's input: JSON lines or Parquet, a file or a directory, read with a
 * deterministic row index (the record's position in the input) so that data errors name the row
 * the user can find. The index column is the command's own and never reaches the output.
 */
final class InputTable {

    /** Matrix columns whose JSON numbers may all be integers (inferred as bigint): read as double. */
    private static final Set<String> MATRIX_COLUMNS = Set.of("query", "key", "value", "attn_bias");

    final String path;
    final Dataset<Row> rows;
    final String rowIndexColumn;

    private InputTable(String path, Dataset<Row> rows, String rowIndexColumn) {
        this.path = path;
        this.rows = rows;
        this.rowIndexColumn = rowIndexColumn;
    }

    /** True when the input had no columns at all (an empty JSON lines file). */
    boolean isEmpty() {
        return rows.schema().size() == 1;
    }

    /** Whether the input has a column of this name. */
    boolean has(String column) {
        return List.of(rows.columns()).contains(column) && !column.equals(rowIndexColumn);
    }

    static InputTable read(SparkSession spark, String path) {
        boolean json = isJson(path, spark.sparkContext().hadoopConfiguration());
        Dataset<Row> df;
        if (json) {
            // FAILFAST: a malformed line is an error, not a row of nulls.
            df = spark.read().option("mode", "FAILFAST").json(path);
            StructType widened = widenIntegerMatrices(df.schema());
            if (!widened.equals(df.schema())) {
                df = spark.read().option("mode", "FAILFAST").schema(widened).json(path);
            }
        } else {
            df = spark.read().parquet(path);
        }
        String index = "__spark_attention_row";
        while (List.of(df.columns()).contains(index)) {
            index = "_" + index;
        }
        return new InputTable(path, withRowIndex(spark, df, index), index);
    }

    /** JSON lines or Parquet, from the file's extension or, for a directory, its files' extensions. */
    private static boolean isJson(String path, Configuration conf) {
        try {
            Path p = new Path(path);
            FileSystem fs = p.getFileSystem(conf);
            FileStatus status;
            try {
                status = fs.getFileStatus(p);
            } catch (FileNotFoundException e) {
                throw new BadInputException("--input " + path + ": no such file or directory");
            }
            List<String> names = new ArrayList<>();
            if (status.isDirectory()) {
                for (FileStatus f : fs.listStatus(p)) {
                    String name = f.getPath().getName();
                    if (f.isFile() && !name.startsWith("_") && !name.startsWith(".")) {
                        names.add(name);
                    }
                }
                if (names.isEmpty()) {
                    throw new BadInputException("--input " + path + ": the directory has no data files");
                }
            } else {
                names.add(p.getName());
            }
            boolean allJson = names.stream().allMatch(InputTable::jsonName);
            boolean allParquet = names.stream().allMatch(n -> n.toLowerCase(Locale.ROOT).endsWith(".parquet"));
            if (!allJson && !allParquet) {
                throw new BadInputException("--input " + path + ": expected JSON lines (.json, .jsonl) or Parquet "
                    + "(.parquet) files, found " + String.join(", ", names.subList(0, Math.min(5, names.size()))));
            }
            return allJson;
        } catch (IOException e) {
            throw new BadInputException("--input " + path + ": " + e.getMessage(), e);
        }
    }

    private static boolean jsonName(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        return n.endsWith(".json") || n.endsWith(".jsonl") || n.endsWith(".ndjson");
    }

    /** JSON infers bigint for matrices written with integers only; the stages take float or double. */
    private static StructType widenIntegerMatrices(StructType schema) {
        StructType out = new StructType();
        for (StructField f : schema.fields()) {
            DataType t = MATRIX_COLUMNS.contains(f.name()) ? widen(f.dataType()) : f.dataType();
            out = out.add(new StructField(f.name(), t, f.nullable(), f.metadata()));
        }
        return out;
    }

    private static DataType widen(DataType t) {
        if (t instanceof ArrayType) {
            ArrayType a = (ArrayType) t;
            return DataTypes.createArrayType(widen(a.elementType()), a.containsNull());
        }
        return t instanceof IntegralType ? DataTypes.DoubleType : t;
    }

    /**
     * Appends each row's position in the input (0-based, in file and line order as Spark reads
     * them). Catalyst rows are indexed directly, not converted to {@code Row}s and back, which
     * would box every float of every matrix.
     */
    private static Dataset<Row> withRowIndex(SparkSession spark, Dataset<Row> df, String column) {
        JavaRDD<InternalRow> indexed = df.queryExecution().toRdd().toJavaRDD().zipWithIndex()
            .map(t -> new JoinedRow(t._1().copy(), new GenericInternalRow(new Object[] {t._2()})));
        StructType schema = df.schema().add(column, DataTypes.LongType, false);
        return ((org.apache.spark.sql.classic.SparkSession) spark).internalCreateDataFrame(indexed.rdd(), schema,
            false);
    }
}

package io.sparkattention.examples.cli;

import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.JoinedRow;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.IntegralType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The command line's input: JSON lines or Parquet, a file or a directory, read with the types
 * the command declares for the columns it knows and a deterministic row index (the record's position in the input) so that data errors name the row
 * the user can find. The index column is the command's own and never reaches the output.
 */
final class InputTable {

    final String path;
    final Dataset<Row> rows;
    final String rowIndexColumn;
    /** The JSON lines files (null for Parquet): where a failed read's record is looked up. */
    final JsonLines jsonLines;
    /** The columns the command knows, and their kinds. */
    final Map<String, ColumnKind> known;

    private InputTable(String path, Dataset<Row> rows, String rowIndexColumn, JsonLines jsonLines,
                       Map<String, ColumnKind> known) {
        this.path = path;
        this.rows = rows;
        this.rowIndexColumn = rowIndexColumn;
        this.jsonLines = jsonLines;
        this.known = known;
    }

    /** True when the input had no columns at all (an empty JSON lines file). */
    boolean isEmpty() {
        return rows.schema().size() == 1;
    }

    /** Whether the input has a column of this name. */
    boolean has(String column) {
        return List.of(rows.columns()).contains(column) && !column.equals(rowIndexColumn);
    }

    /**
     * Reads the input, whose format {@link InputFiles#inspect} found. JSON lines are read with the
     * schema {@link DeclaredSchema} declares (no pass over the whole input to infer one); in
     * Parquet, integer matrices (int or long arrays) are read as double, as JSON numbers are.
     *
     * @param known the columns the command knows, by name, and their kinds
     */
    static InputTable read(SparkSession spark, String path, boolean json, Map<String, ColumnKind> known) {
        Dataset<Row> df;
        JsonLines lines = null;
        if (json) {
            lines = JsonLines.of(path);
            StructType schema = DeclaredSchema.of(spark, lines, known);
            // FAILFAST: a malformed line is an error, not a row of nulls.
            df = schema.isEmpty() ? spark.emptyDataFrame()
                : spark.read().option("mode", "FAILFAST").schema(schema).json(path);
        } else {
            df = spark.read().parquet(path);
            StructType widened = widenIntegerMatrices(df.schema(), matrices(known));
            if (!widened.equals(df.schema())) {
                Column[] columns = new Column[widened.size()];
                for (int i = 0; i < columns.length; i++) {
                    StructField f = widened.fields()[i];
                    columns[i] = functions.col(f.name()).cast(f.dataType()).as(f.name());
                }
                df = df.select(columns);
            }
        }
        String index = "__spark_attention_row";
        while (List.of(df.columns()).contains(index)) {
            index = "_" + index;
        }
        try {
            return new InputTable(path, withRowIndex(spark, df, index), index, lines, known);
        } catch (Exception e) {
            // Numbering the rows of several partitions counts them: a bad record can fail here.
            // (SparkException is checked, and thrown by Scala code undeclared.)
            BadInputException record = BadRecords.describe(e, new InputTable(path, df, index, lines, known));
            throw record != null ? record : e instanceof RuntimeException ? (RuntimeException) e
                : new IllegalStateException(e.getMessage(), e);
        }
    }

    /** The known columns that hold matrices (of numbers). */
    private static Set<String> matrices(Map<String, ColumnKind> known) {
        Set<String> out = new HashSet<>();
        known.forEach((name, kind) -> {
            if (kind == ColumnKind.MATRIX || kind == ColumnKind.BIAS) {
                out.add(name);
            }
        });
        return out;
    }

    /** The input's columns, without the command's row index. */
    String columnList() {
        List<String> names = new ArrayList<>(List.of(rows.columns()));
        names.remove(rowIndexColumn);
        return names.isEmpty() ? "none" : String.join(", ", names);
    }

    /** A message with the command's row index column taken out of any column list in it. */
    String hideIndex(String message) {
        return message.replace(", " + rowIndexColumn, "").replace(rowIndexColumn + ", ", "")
            .replace(rowIndexColumn, "");
    }

    /** Integer matrices as double matrices: the stages take float or double. */
    private static StructType widenIntegerMatrices(StructType schema, Set<String> matrixColumns) {
        StructType out = new StructType();
        for (StructField f : schema.fields()) {
            DataType t = matrixColumns.contains(f.name()) ? widen(f.dataType()) : f.dataType();
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

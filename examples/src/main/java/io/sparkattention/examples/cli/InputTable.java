package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.DataFrameReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The command line's input: JSON lines, CSV or Parquet, a file or a directory, read with the types
 * the command declares for the columns it knows and a deterministic row id, so that data errors
 * name the row the user can find (its position in the input). The id column is the command's
 * own and never reaches the output.
 */
final class InputTable {

    /** Bits of a row id that hold the row's position in its input partition (2^40 rows each). */
    static final int LOCAL_BITS = 40;
    /**
     * A record named in a stage's message: "row ID:" (the command's row id, or a position in the
     * input), or "row N of partition P:" (a stage without a row id column).
     */
    private static final Pattern ROW_ID = Pattern.compile("\\brow (\\d+)(?: of partition (\\d+))?:");

    final String path;
    final Dataset<Row> rows;
    final String rowIndexColumn;
    /** Rows in the input. */
    final long total;
    /** Partitions the rows are split into ({@link RowSplit}). */
    final int partitions;
    /** The input as read, before the index: where a record's file is found. */
    private final Dataset<Row> read;
    /** The JSON lines files (null for CSV and Parquet): where a failed read's record is looked up. */
    final JsonLines jsonLines;
    /** The CSV files (null for JSON lines and Parquet): where a record's line is looked up. */
    final CsvRecords csv;
    /** The columns the command knows, and their kinds. */
    final Map<String, ColumnKind> known;

    private InputTable(String path, Dataset<Row> rows, String rowIndexColumn, long total, int partitions,
                       Dataset<Row> read, JsonLines jsonLines, CsvRecords csv, Map<String, ColumnKind> known) {
        this.path = path;
        this.rows = rows;
        this.rowIndexColumn = rowIndexColumn;
        this.total = total;
        this.partitions = partitions;
        this.read = read;
        this.jsonLines = jsonLines;
        this.csv = csv;
        this.known = known;
    }

    /** True when the input had no columns at all (JSON lines without a record). */
    boolean isEmpty() {
        return rows.schema().size() == 1;
    }

    /** Whether the input has a column of this name. */
    boolean has(String column) {
        return List.of(rows.columns()).contains(column) && !column.equals(rowIndexColumn);
    }

    /**
     * Reads the input, whose format {@link InputFiles#inspect} found. JSON lines are read with the
     * schema {@link DeclaredSchema} declares (no pass over the whole input to infer one); CSV as RFC
     * 4180 writes it ({@link CsvRecords}), with its header, every column a string; in Parquet, integer matrices (int or long arrays) are read
     * as double: the stages take float or double. The rows are split into runs of consecutive rows
     * in input order ({@link RowSplit}).
     *
     * @param known      the columns the command knows, by name, and their kinds
     * @param partitions {@code --partitions}, or null for the default
     */
    static InputTable read(SparkSession spark, String path, InputFiles.Format format, Map<String, ColumnKind> known,
                           Integer partitions) {
        Dataset<Row> df;
        JsonLines lines = null;
        CsvRecords csv = null;
        if (format == InputFiles.Format.JSON) {
            lines = JsonLines.of(path);
            StructType schema = DeclaredSchema.of(spark, lines, known);
            // FAILFAST: a malformed line is an error, not a row of nulls.
            df = schema.isEmpty() ? spark.emptyDataFrame()
                : spark.read().option("mode", "FAILFAST").schema(schema).json(path);
        } else if (format == InputFiles.Format.CSV) {
            csv = CsvRecords.of(path);
            DataFrameReader reader = spark.read().option("mode", "FAILFAST");
            for (String[] option : CsvRecords.SPARK_OPTIONS) {
                reader = reader.option(option[0], option[1]);
            }
            df = reader.csv(path);
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
        RowSplit split;
        try {
            split = RowSplit.of(spark, df, index, partitions);
        } catch (Exception e) {
            // The split's count is the first job over the input: a record Spark cannot read fails it.
            // SparkException is a checked exception that Scala code throws undeclared.
            BadInputException record = BadRecords.describe(e, new InputTable(path, df, index, 0, 1, df, lines, csv, known));
            if (record != null) {
                throw record;
            }
            throw e;
        }
        return new InputTable(path, split.rows, index, split.total, split.partitions, df, lines, csv,
            known);
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
     * The error with its message's records named where the user finds them (see
     * {@link #records(String, long)}) and the command's row index column taken out of column
     * lists; {@code e} itself when its message names none. Rows are named as the attention stages name them: by the command's
     * row id, or by position from 0.
     */
    Exception records(Exception e) {
        return records(e, 0);
    }

    /**
     * {@link #records(Exception)} for a stage that names rows by their position counted from
     * {@code firstRow} (0 or 1).
     */
    Exception records(Exception e, long firstRow) {
        for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
            String message = t.getMessage();
            if ((t instanceof IllegalArgumentException || t instanceof BadInputException) && message != null) {
                String shown = records(hideIndex(message), firstRow);
                return shown.equals(message) ? e : new BadInputException(shown, e);
            }
        }
        return e;
    }

    /**
     * {@code message} with every record it names ("row ID:", as the stages name rows) named where
     * the user finds it: {@code --input PATH: line N:} for JSON lines and CSV (the 1-based line
     * the record starts on in its file, and the file's name for a directory), {@code --input PATH: row N:} for Parquet (the
     * row's position in the input, from 0, in the order Spark reads the files). Finding it costs
     * a job over the input (on this error path only).
     *
     * @param firstRow the number the message's stage gives the input's first row when it names
     *                 rows by position (0 or 1); row ids are taken as they are
     */
    String records(String message, long firstRow) {
        Matcher m = ROW_ID.matcher(message);
        StringBuilder out = new StringBuilder();
        List<RowSplit.Block> runs = null;
        while (m.find()) {
            long n;
            long split = -1;
            try {
                n = Long.parseLong(m.group(1));
                if (m.group(2) != null) {
                    // A stage without a row id names the row in its partition of the split: runs of consecutive rows.
                    long p = Long.parseLong(m.group(2));
                    n += (p * total + partitions - 1) / partitions;
                } else if (firstRow > 0) {
                    n -= firstRow;
                } else {
                    split = n >>> LOCAL_BITS;
                    n &= (1L << LOCAL_BITS) - 1;
                }
            } catch (NumberFormatException e) {
                continue;
            }
            if (runs == null) {
                runs = runs();
            }
            String where = runs == null ? "row " + n + (split <= 0 ? "" : " of input split " + split)
                : split >= 0 ? where(runs, (int) split, n) : whereAt(runs, n);
            boolean named = message.startsWith("--input ");
            m.appendReplacement(out, Matcher.quoteReplacement((named || m.start() > 0 ? "" : "--input " + path + ": ")
                + where + ":"));
        }
        m.appendTail(out);
        return out.toString();
    }

    /** The input's file blocks in the order Spark reads them, with their places; null when they cannot be listed. */
    private List<RowSplit.Block> runs() {
        try {
            return RowSplit.blocks(read);
        } catch (Exception e) {
            // SparkException is checked, and thrown by Scala code undeclared.
            return null;
        }
    }

    /** Where row {@code local} of input split {@code split} (a row id) is. */
    private String where(List<RowSplit.Block> runs, int split, long local) {
        long left = local;
        for (RowSplit.Block run : runs) {
            if (run.split != split) {
                continue;
            }
            if (left < run.rows) {
                return describe(runs, run, left);
            }
            left -= run.rows;
        }
        // A stage that counts rows from 0 across the input names them as ids of split 0.
        return split == 0 ? whereAt(runs, local) : "row " + local + " of input split " + split;
    }

    /** Where the row at {@code place} of the input's order is. */
    private String whereAt(List<RowSplit.Block> runs, long place) {
        for (RowSplit.Block run : RowSplit.inOrder(runs)) {
            if (place < run.place + run.rows) {
                return describe(runs, run, place - run.place);
            }
        }
        return "row " + place;
    }

    /** Row {@code k} of a run: its line of a JSON lines or CSV file, or its place in the input from 0. */
    private String describe(List<RowSplit.Block> runs, RowSplit.Block run, long k) {
        if (jsonLines == null && csv == null) {
            return "row " + (run.place + k);
        }
        long inFile = k;
        for (RowSplit.Block r : runs) {
            inFile += r.file.equals(run.file) && r.start < run.start ? r.rows : 0;
        }
        if (csv != null) {
            CsvRecords.Record record = csv.at(run.file, inFile);
            return record == null ? "row " + (run.place + k) : csv.where(record);
        }
        return line(run.file, inFile, run.place + k);
    }

    /** The line of record {@code index} (from 0) of a JSON lines file, or the row's position when not found. */
    private String line(String file, long index, long position) {
        long[] seen = {0};
        JsonLines.Line line = jsonLines.find(file, l -> seen[0]++ == index);
        return line == null ? "row " + position : jsonLines.where(line);
    }
}

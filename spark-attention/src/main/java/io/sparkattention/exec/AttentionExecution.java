package io.sparkattention.exec;

import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructField;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Runs an {@link AttentionJob} over a DataFrame with a {@link Strategy}: every input column is
 * kept and the job's output columns are appended.
 */
public final class AttentionExecution {

    private static final Logger LOG = LoggerFactory.getLogger(AttentionExecution.class);

    private AttentionExecution() {
    }

    /** Applies {@code job} to every row of {@code dataset}. */
    public static Dataset<Row> transform(Dataset<?> dataset, AttentionJob job, Strategy strategy) {
        Dataset<Row> df = dataset.toDF();
        Strategy chosen = strategy == Strategy.AUTO ? Strategy.BATCH : strategy;
        LOG.debug("attention strategy {} (requested {})", chosen, strategy);
        return batch(df, job);
    }

    /** Row-local: one expression per row, no shuffle; works on streaming DataFrames. */
    static Dataset<Row> batch(Dataset<Row> df, AttentionJob job) {
        List<Column> inputs = new ArrayList<>();
        for (String name : job.inputColumns()) {
            inputs.add(df.col(quote(name)));
        }
        Column rowId = job.rowIdColumn() == null ? null : df.col(quote(job.rowIdColumn()));
        Column struct = RowFunctions.column("attention", new BatchRowFunction(job), job.outputStruct(), rowId, inputs);
        return appendStructFields(df, struct, job);
    }

    /**
     * {@code df} plus one column per field of {@code struct}. The struct is computed once per row:
     * Catalyst does not inline a non-trivial expression into several projections.
     */
    static Dataset<Row> appendStructFields(Dataset<Row> df, Column struct, AttentionJob job) {
        String tmp = "__attention_" + UUID.randomUUID().toString().replace("-", "");
        Dataset<Row> withStruct = df.withColumn(tmp, struct);
        List<Column> columns = new ArrayList<>();
        for (String name : df.columns()) {
            columns.add(withStruct.col(quote(name)));
        }
        for (StructField field : job.outputStruct().fields()) {
            columns.add(withStruct.col(quote(tmp)).getField(field.name()).as(field.name()));
        }
        return withStruct.select(columns.toArray(new Column[0]));
    }

    /** Backtick-quotes a column name so dots and backticks in it are taken literally. */
    static String quote(String name) {
        return "`" + name.replace("`", "``") + "`";
    }
}

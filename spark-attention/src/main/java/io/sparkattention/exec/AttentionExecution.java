package io.sparkattention.exec;

import io.sparkattention.nn.AttentionWeightsMode;
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
 *
 * <p>{@link Strategy#BATCH} keeps each row in its task and its partition, in order. {@link Strategy#HEAD}
 * and {@link Strategy#SEQUENCE} shuffle ({@link UnitExecution}): each output row is in its input
 * row's partition, but the order of rows inside a partition may change, as after a join.
 * {@link Strategy#AUTO} measures the workload with one small aggregation job over the sizes of
 * the query and key columns ({@link WorkloadStats}), asks {@link AutoStrategy} and logs the
 * choice; on a streaming DataFrame it is always batch, without measuring.
 *
 * <p>Attention weights are available with batch and head, not with sequence. Weights are L×S per
 * head and need each query's final log-sum-exp, which under sequence exists only after the
 * merge; rows long enough to need key blocks would have weights of gigabytes per head (64 GiB at
 * 131,072 tokens). A request for weights with sequence is rejected before any job runs, and auto
 * never picks sequence when weights are requested.
 */
public final class AttentionExecution {

    private static final Logger LOG = LoggerFactory.getLogger(AttentionExecution.class);

    private AttentionExecution() {
    }

    /**
     * Applies {@code job} to every row of {@code dataset}.
     *
     * @throws IllegalArgumentException when the strategy cannot run this job: head or sequence on a
     *                                  streaming DataFrame, or sequence with attention weights
     */
    public static Dataset<Row> transform(Dataset<?> dataset, AttentionJob job, Strategy strategy) {
        Dataset<Row> df = dataset.toDF();
        Strategy chosen = resolve(df, job, strategy);
        switch (chosen) {
            case BATCH:
                return batch(df, job);
            case HEAD:
            case SEQUENCE:
                return UnitExecution.transform(df, job, chosen, ExecutionSettings.from(df.sparkSession()));
            default:
                throw new IllegalStateException("unresolved strategy " + chosen);
        }
    }

    /** The strategy that {@link #transform} runs: {@code strategy} itself when it is not AUTO, after checking it fits. */
    static Strategy resolve(Dataset<Row> df, AttentionJob job, Strategy strategy) {
        if (strategy != Strategy.AUTO) {
            check(df, job, strategy);
            LOG.debug("attention strategy {} (requested)", strategy.paramValue());
            return strategy;
        }
        AutoStrategy.Choice choice;
        if (df.isStreaming()) {
            choice = AutoStrategy.forStreaming();
        } else {
            ExecutionSettings settings = ExecutionSettings.from(df.sparkSession());
            choice = AutoStrategy.choose(WorkloadStats.measure(df, job),
                df.sparkSession().sparkContext().defaultParallelism(), job.weightsMode(), settings);
        }
        LOG.info("attention strategy auto -> {}", choice);
        return choice.strategy();
    }

    private static void check(Dataset<Row> df, AttentionJob job, Strategy strategy) {
        if (strategy != Strategy.BATCH && df.isStreaming()) {
            throw new IllegalArgumentException("strategy " + strategy.paramValue() + " shuffles and cannot run on a "
                + "streaming DataFrame; use strategy batch (or auto, which is batch on streams)");
        }
        if (strategy == Strategy.SEQUENCE && job.weightsMode() != AttentionWeightsMode.NONE) {
            throw new IllegalArgumentException("strategy sequence does not produce attention weights, but weights "
                + "were requested (weightsCol, --need-weights); unset weightsCol or use strategy head or batch");
        }
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
            columns.add(withStruct.col(quote(tmp)).getField(field.name()).as(field.name(), field.metadata()));
        }
        return withStruct.select(columns.toArray(new Column[0]));
    }

    /** Backtick-quotes a column name so dots and backticks in it are taken literally. */
    static String quote(String name) {
        return "`" + name.replace("`", "``") + "`";
    }
}

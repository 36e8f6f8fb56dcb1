/**
 * How one stage's rows are laid out on Spark. A stage hands
 * {@link io.sparkattention.exec.AttentionExecution} an {@link io.sparkattention.exec.AttentionJob}
 * (which columns to read, how to prepare a row, how to finish and encode the result) and a
 * {@link io.sparkattention.exec.Strategy}: batch (whole rows in the input's own tasks), head
 * ((row, head) units, two shuffles) or sequence ((row, head, query block, key block) units, three
 * shuffles, merged by the exact log-sum-exp rule), or auto, which measures the workload once
 * ({@link io.sparkattention.exec.WorkloadStats}) and asks
 * {@link io.sparkattention.exec.AutoStrategy}. Every strategy gives the batch strategy's numbers,
 * and the shuffles' keys are derived from row content, so retries give the same bits.
 *
 * <p>Per-row work is one Catalyst expression ({@link io.sparkattention.exec.RowFunctions} over a
 * {@link io.sparkattention.exec.RowFunction}); a training step's gradient sums are added in a
 * fixed order whatever the cluster does ({@link io.sparkattention.exec.FixedOrderAggregate}). The
 * package knows no stage: it imports the row codec, the layers and the kernel, never {@code ml}.
 */
package io.sparkattention.exec;

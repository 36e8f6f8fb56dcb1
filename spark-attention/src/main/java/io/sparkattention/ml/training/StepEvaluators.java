package io.sparkattention.ml.training;

import io.sparkattention.nn.TrainingEvaluator;
import org.apache.spark.TaskContext;
import org.apache.spark.util.TaskCompletionListener;

import java.util.function.Supplier;

/**
 * The evaluator a task uses for one step: made once per task, network, parameter vector and mode
 * (its weights prepared, its scratch sized) and reused by every partition the task folds (a
 * {@link io.sparkattention.exec.FixedOrderAggregate} leaf task folds a run of them). A step over P
 * partitions in T leaves then prepares the weights T times, not P times, so spreading a step's rows
 * over many partitions costs little.
 *
 * <p>The key is the parameter array's and the network's identity: an executor holds one
 * deserialized copy of a step's broadcast, shared by its tasks (a local master's tasks share the
 * driver's array itself, which the trainer updates in place between steps: a key never outlives its
 * task, so no evaluator of an earlier step is found again). An evaluator's result for a row does
 * not depend on the rows it saw before (its scratch is overwritten), so the reuse changes no bit.
 * The evaluator is dropped and {@link TrainingEvaluator#release released} when its task ends,
 * failed or not, so the next task's evaluator reuses its buffers (a fine-tuned MiniLM's pending gradient, records and scratch, about
 * 180 MB a task) instead of allocating them; outside a Spark task (a direct call) the thread keeps
 * it until another key replaces it, and never releases it (its caller may still hold it).
 */
final class StepEvaluators {

    private static final ThreadLocal<Bound> LAST = new ThreadLocal<>();

    private StepEvaluators() {
    }

    /**
     * This thread's evaluator for ({@code network}, {@code parameters}, {@code training}), made by
     * {@code make} on first use.
     */
    @SuppressWarnings("unchecked")
    static <E> E forStep(Object network, float[] parameters, boolean training, Supplier<E> make) {
        Bound last = LAST.get();
        if (last != null && last.parameters == parameters && last.network == network && last.training == training) {
            return (E) last.evaluator;
        }
        LAST.remove();
        E made = make.get();
        LAST.set(new Bound(network, parameters, training, made));
        TaskContext task = TaskContext.get();
        if (task != null) {
            // Dropped when the task ends, failed or not: a failed row may leave scratch half
            // written. The task's folds have returned, so nobody uses the evaluator any more: it is
            // released, its buffers left to the next evaluator of the network (listeners
            // run on the task's thread).
            task.addTaskCompletionListener((TaskCompletionListener) context -> {
                LAST.remove();
                if (made instanceof TrainingEvaluator<?> evaluator) {
                    evaluator.release();
                }
            });
        }
        return made;
    }

    /** An evaluator and the key it was made for (it keeps its own copy of the parameters). */
    private record Bound(Object network, float[] parameters, boolean training, Object evaluator) {
    }
}

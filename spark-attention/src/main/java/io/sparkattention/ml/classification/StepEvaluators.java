package io.sparkattention.ml.classification;

import io.sparkattention.nn.AttentionClassifierNetwork;
import io.sparkattention.nn.ClassifierEvaluator;
import org.apache.spark.TaskContext;
import org.apache.spark.util.TaskCompletionListener;

/**
 * The evaluator a task uses for one step: made once per task and parameter vector (its
 * projections prepared, its scratch sized) and reused by every row of the task's partition. Each
 * partition of a {@link io.sparkattention.exec.FixedOrderAggregate} step is its own task, so a
 * step over P partitions prepares the weights P times (10–15 ms each at E = 768).
 *
 * <p>The key is the parameter array's identity: an executor holds one deserialized copy of a
 * step's broadcast, shared by its tasks, and every step broadcasts a new array. An evaluator's
 * result for a row does not depend on the rows it saw before (its scratch is overwritten), so the
 * reuse changes no bit. The evaluator is dropped when its task ends, failed or not; outside a
 * Spark task (a direct call) the thread keeps it until the next parameter vector replaces it.
 */
final class StepEvaluators {

    private static final ThreadLocal<Bound> LAST = new ThreadLocal<>();

    private StepEvaluators() {
    }

    /** This thread's evaluator of {@code network} at {@code parameters}, made on first use. */
    static ClassifierEvaluator forStep(AttentionClassifierNetwork network, float[] parameters) {
        Bound last = LAST.get();
        if (last != null && last.parameters == parameters
            && last.evaluator.network().parameterCount() == network.parameterCount()) {
            return last.evaluator;
        }
        LAST.remove();
        ClassifierEvaluator made = network.bind(parameters);
        LAST.set(new Bound(parameters, made));
        TaskContext task = TaskContext.get();
        if (task != null) {
            // Dropped when the task ends, failed or not: a failed row may leave scratch half
            // written, and a finished fit leaves nothing behind on the executor's threads.
            task.addTaskCompletionListener((TaskCompletionListener) context -> LAST.remove());
        }
        return made;
    }

    /** An evaluator and the parameter array it was made from (it keeps its own copy). */
    private static final class Bound {
        final float[] parameters;
        final ClassifierEvaluator evaluator;

        Bound(float[] parameters, ClassifierEvaluator evaluator) {
            this.parameters = parameters;
            this.evaluator = evaluator;
        }
    }
}

package io.sparkattention.ml.classification;

import io.sparkattention.nn.AttentionClassifierNetwork;
import io.sparkattention.nn.ClassifierEvaluator;

/**
 * The evaluator a task thread uses for one step: made once per thread and parameter vector (its
 * projections prepared, its scratch sized) and reused by every partition the thread folds in that
 * step. A step over P partitions then prepares the weights once per thread, not P times (10–15 ms
 * each at E = 768), so spreading a step's rows over many partitions costs little.
 *
 * <p>The key is the parameter array's identity: an executor holds one deserialized copy of a
 * step's broadcast, shared by its tasks, and every step broadcasts a new array. An evaluator's
 * result for a row does not depend on the rows it saw before (its scratch is overwritten), so the
 * reuse changes no bit. Each task thread keeps its last evaluator (its prepared weights and
 * scratch, a few times the parameter count in floats) until the next step replaces it.
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

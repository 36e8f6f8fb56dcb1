package io.sparkattention.ml.lm;

import io.sparkattention.ml.training.TrainingListener;

import java.util.ArrayList;
import java.util.List;

/**
 * The validation losses of a {@link GptLanguageModeler} fit, as the engine's listener: when the
 * engine reports entry i of the objective history, the parameter vector it trains in place holds
 * the weights before step i (or, for the last entry, the final weights), so for i = 0, every,
 * 2·every, … the validation loss is computed there; {@link #finish} adds the final weights' loss
 * when the last entry was not one of those. Each loss is passed on to the validation listener as it
 * is known, after the training listener heard the step's loss.
 */
final class ValidationRun implements TrainingListener {

    private final ValidationLoss loss;
    private final int every;
    private final float[] theta;
    private final TrainingListener losses;
    private final TrainingListener validations;
    private final List<Integer> iterations = new ArrayList<>();
    private final List<Double> values = new ArrayList<>();

    /**
     * @param loss        the validation set's loss, or null without one
     * @param every       evaluate before every this-many-th step, 0 after the last only
     * @param theta       the vector the engine trains in place
     * @param losses      hears the objective history, or null
     * @param validations hears the validation losses, or null
     */
    ValidationRun(ValidationLoss loss, int every, float[] theta, TrainingListener losses,
                  TrainingListener validations) {
        this.loss = loss;
        this.every = every;
        this.theta = theta;
        this.losses = losses;
        this.validations = validations;
    }

    @Override
    public void onLoss(int iteration, double value) {
        if (losses != null) {
            losses.onLoss(iteration, value);
        }
        if (loss != null && every > 0 && iteration % every == 0) {
            evaluate(iteration);
        }
    }

    /** After the fit's {@code last} entry: the final weights' validation loss, unless already computed. */
    void finish(int last) {
        if (loss != null && (iterations.isEmpty() || iterations.get(iterations.size() - 1) != last)) {
            evaluate(last);
        }
    }

    private void evaluate(int iteration) {
        double value = loss.at(theta);
        iterations.add(iteration);
        values.add(value);
        if (validations != null) {
            validations.onLoss(iteration, value);
        }
    }

    /** The steps before which the losses were computed. */
    int[] iterations() {
        return iterations.stream().mapToInt(Integer::intValue).toArray();
    }

    /** The validation losses, natural-log per predicted token. */
    double[] losses() {
        return values.stream().mapToDouble(Double::doubleValue).toArray();
    }
}

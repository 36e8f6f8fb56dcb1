package io.sparkattention.ml.lm;

import java.io.Serializable;
import java.util.Arrays;

/**
 * What a {@link GptLanguageModeler} fit did: the objective history (entry i, for i below
 * {@link #totalIterations()}, is step i's mean loss per predicted token over its sample, dropout
 * on, before the step; the last entry is the mean over every training sequence at the final
 * weights, without dropout) and the validation losses (the mean loss per predicted token over the
 * validation sequences, without dropout, before the steps {@link #validationIterations()} name;
 * the last after the final step). Losses are natural-log: bits per token are loss / ln 2.
 */
public final class GptLanguageModelSummary implements Serializable {

    private static final long serialVersionUID = 1L;

    private final double[] objectiveHistory;
    private final int[] validationIterations;
    private final double[] validationHistory;

    /**
     * @throws IllegalArgumentException when the validation arrays differ in length
     */
    GptLanguageModelSummary(double[] objectiveHistory, int[] validationIterations, double[] validationHistory) {
        if (validationIterations.length != validationHistory.length) {
            throw new IllegalArgumentException(validationIterations.length + " validation iterations for "
                + validationHistory.length + " validation losses");
        }
        this.objectiveHistory = objectiveHistory.clone();
        this.validationIterations = validationIterations.clone();
        this.validationHistory = validationHistory.clone();
    }

    /** @return the loss before each step, then at the final weights (a copy) */
    public double[] objectiveHistory() {
        return objectiveHistory.clone();
    }

    /** @return the optimiser steps taken */
    public int totalIterations() {
        return objectiveHistory.length - 1;
    }

    /** @return the steps before which the validation loss was computed (the last: after the final step); empty without validation */
    public int[] validationIterations() {
        return validationIterations.clone();
    }

    /** @return the validation losses, one per {@link #validationIterations()} entry */
    public double[] validationHistory() {
        return validationHistory.clone();
    }

    @Override
    public String toString() {
        return "GptLanguageModelSummary: totalIterations=" + totalIterations() + ", objectiveHistory="
            + Arrays.toString(objectiveHistory) + ", validationIterations=" + Arrays.toString(validationIterations)
            + ", validationHistory=" + Arrays.toString(validationHistory);
    }
}

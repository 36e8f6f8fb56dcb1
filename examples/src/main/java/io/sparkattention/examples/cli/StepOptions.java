package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import io.sparkattention.ml.training.TransformerTrainingParams;
import picocli.CommandLine.Option;

/**
 * The options of a training step that the commands training a transformer ({@code fine-tune},
 * {@code train-lm}) share, as a picocli mixin: {@code --max-grad-norm}, {@code --dropout},
 * {@code --max-iter}, checked and set on the estimator once. Where dropout falls is each
 * command's own words (key {@code dropout} of its resource bundle), so its help reads as before.
 */
final class StepOptions {

    @Option(names = "--max-grad-norm", defaultValue = "1", paramLabel = "C",
        description = "Clip the global gradient norm to C; 0: no clipping (default ${DEFAULT-VALUE}).")
    double maxGradNorm;

    @Option(names = "--dropout", defaultValue = "0.1", paramLabel = "P", descriptionKey = "dropout")
    double dropout;

    @Option(names = "--max-iter", defaultValue = "100", paramLabel = "T",
        description = "Optimiser steps, >= 0 (default ${DEFAULT-VALUE}).")
    int maxIter;

    /**
     * Checks the options, naming the one that does not fit.
     *
     * @throws BadInputException for a clipping norm not finite and >= 0, a dropout outside [0, 1),
     *                           negative steps
     */
    void check() {
        if (!(maxGradNorm >= 0) || Double.isInfinite(maxGradNorm)) {
            throw new BadInputException("--max-grad-norm must be a finite number >= 0, got " + maxGradNorm);
        }
        if (!(dropout >= 0 && dropout < 1)) {
            throw new BadInputException("--dropout must be in [0, 1), got " + dropout);
        }
        if (maxIter < 0) {
            throw new BadInputException("--max-iter must be >= 0, got " + maxIter);
        }
    }

    /** {@code stage} with the clipping norm, the dropout and the steps set. */
    <T extends TransformerTrainingParams<T>> T apply(T stage) {
        return stage.setMaxGradNorm(maxGradNorm).setDropout(dropout).setMaxIter(maxIter);
    }
}

package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import io.sparkattention.ml.training.TransformerTrainingParams;
import picocli.CommandLine.Option;

import java.util.List;

/**
 * The optimiser's options of the commands that train a transformer ({@code fine-tune},
 * {@code train-lm}), as a picocli mixin: {@code --solver}, {@code --step-size},
 * {@code --weight-decay}, {@code --warmup-steps}, checked and set on the estimator once. What a
 * command words its own way (the solver's and the warmup's descriptions, the step size's default)
 * comes from the command's resource bundle (keys {@code solver}, {@code warmup-steps},
 * {@code step-size.default}), so each command's help reads as before.
 */
final class OptimiserOptions {

    /** Values of --solver. */
    static final List<String> SOLVERS = List.of("adamw", "adam");

    @Option(names = "--solver", defaultValue = "adamw", paramLabel = "S", descriptionKey = "solver")
    String solver;

    @Option(names = "--step-size", defaultValue = "${bundle:step-size.default}", paramLabel = "LR",
        description = "Peak learning rate, > 0 (default ${DEFAULT-VALUE}).")
    double stepSize;

    @Option(names = "--weight-decay", defaultValue = "0", paramLabel = "WD",
        description = "AdamW's decoupled weight decay, >= 0 (default ${DEFAULT-VALUE}).")
    double weightDecay;

    @Option(names = "--warmup-steps", defaultValue = "0", paramLabel = "W", descriptionKey = "warmup-steps")
    int warmupSteps;

    /**
     * Checks the options, naming the one that does not fit; --solver is normalised.
     *
     * @throws BadInputException for an unknown solver, a step size not finite and > 0, a weight
     *                           decay not finite and >= 0 or given to adam, negative warmup steps
     */
    void check() {
        solver = Choices.check("--solver", solver, SOLVERS);
        if (!(stepSize > 0) || Double.isInfinite(stepSize)) {
            throw new BadInputException("--step-size must be a finite number > 0, got " + stepSize);
        }
        if (!(weightDecay >= 0) || Double.isInfinite(weightDecay)) {
            throw new BadInputException("--weight-decay must be a finite number >= 0, got " + weightDecay);
        }
        if ("adam".equals(solver) && weightDecay > 0) {
            throw new BadInputException("--weight-decay " + weightDecay + " goes with --solver adamw; adam has no "
                + "weight decay");
        }
        if (warmupSteps < 0) {
            throw new BadInputException("--warmup-steps must be >= 0, got " + warmupSteps);
        }
    }

    /** {@code stage} with the solver, step size, weight decay and warmup steps set. */
    <T extends TransformerTrainingParams<T>> T apply(T stage) {
        return stage.setSolver(solver).setStepSize(stepSize).setWeightDecay(weightDecay).setWarmupSteps(warmupSteps);
    }
}

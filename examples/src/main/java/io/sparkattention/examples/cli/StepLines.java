package io.sparkattention.examples.cli;

import java.io.PrintStream;

/**
 * {@code train}'s stdout: one JSON line per step, {@code {"iteration": i, "loss": l}}, each printed
 * once the next step's loss is known, so that the last one can also carry the fitted model's
 * training accuracy: {@code {"iteration": N, "loss": l, "training_accuracy": a}}.
 *
 * A step's line can carry more figures ({@link #add}: {@code train-lm}'s {@code val_loss}) until
 * the next step's loss arrives.
 *
 * <p>Called on the driver's thread by the stage's training listener, then once by {@link #finish}
 * (or {@link #stop}, for a stage without a training accuracy).
 */
final class StepLines {

    private final PrintStream out;
    /** The latest step's line without its closing brace, or null before the first step. */
    private String pending;

    StepLines(PrintStream out) {
        this.out = out;
    }

    /** The listener: prints the previous step's line and holds this one back. */
    void step(int iteration, double loss) {
        flush("}");
        pending = "{\"iteration\": " + iteration + ", \"loss\": " + loss;
    }

    /** Adds {@code "name": value} to the latest step's line, before it is printed. */
    void add(String name, double value) {
        if (pending != null) {
            pending += ", \"" + name + "\": " + value;
        }
    }

    /** Prints the last step's line with the training accuracy (a share in [0, 1]). */
    void finish(double trainingAccuracy) {
        flush(", \"training_accuracy\": " + trainingAccuracy + "}");
    }

    /** Prints the last step's line as it is, when the fit fails after it. */
    void stop() {
        flush("}");
    }

    private void flush(String end) {
        if (pending != null) {
            out.println(pending + end);
            out.flush();
            pending = null;
        }
    }
}

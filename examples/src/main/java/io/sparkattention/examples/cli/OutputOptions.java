package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.Outputs;
import io.sparkattention.examples.common.OutputKind;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code --output} and {@code --overwrite}, the same in every command that writes: a mixin that
 * hands the command its {@link Outputs}, checked before Spark starts, to write into and publish.
 *
 * <pre>{@code
 * @Mixin OutputOptions output;          // in the command
 *
 * try (Outputs out = output.plan(OutputKind.directory()).input("--input", input).check()) {
 *     model.write().save(out.main().uri());
 *     out.publish();                    // not reached on failure: close() discards the staged output
 * }
 * }</pre>
 *
 * A command whose {@code --output} is optional (a default path, or no output unless asked)
 * changes the option with {@link #optional} from a picocli model transformer.
 */
public final class OutputOptions {

    @Option(names = "--output", required = true, paramLabel = "OUT",
        description = "The output (what it holds: see above). Never the current directory, an ancestor of it, the home "
            + "directory or an input; its parent directory must exist. Written beside it and put in place when "
            + "complete: a failed run leaves the earlier output, or nothing.")
    String output;

    @Option(names = "--overwrite",
        description = "Replace an existing output, only if it is an earlier output of spark-attention (or an empty "
            + "directory); stderr says what is replaced, and names the files in it spark-attention did not write.")
    boolean overwrite;

    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    /** The path given with {@code --output} (or its default), null when none. */
    public String path() {
        return output;
    }

    /**
     * The run's outputs, starting with {@code --output} of {@code kind}; add the others and the
     * inputs, then {@link Outputs#check}.
     */
    Outputs plan(OutputKind kind) {
        return new Outputs(command.name(), overwrite).add("--output", output, kind);
    }

    /**
     * {@code spec} with {@code --output} optional: {@code defaultPath} when not given (null: no
     * output), and a description of its own.
     */
    static CommandSpec optional(CommandSpec spec, String defaultPath, String paramLabel, String description) {
        OptionSpec given = spec.findOption("--output");
        OptionSpec.Builder changed = given.toBuilder().required(false).paramLabel(paramLabel)
            .description(description);
        if (defaultPath != null) {
            changed.defaultValue(defaultPath);
        }
        spec.remove(given);
        spec.addOption(changed.build());
        return spec;
    }

}

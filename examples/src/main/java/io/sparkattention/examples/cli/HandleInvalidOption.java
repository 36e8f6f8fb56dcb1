package io.sparkattention.examples.cli;

import picocli.CommandLine.Option;

import java.util.List;

/**
 * {@code --handle-invalid}, the same in every command that reads texts or token ids: what the
 * stages' {@code handleInvalid} param does with a row they cannot take (a null text, null ids, a
 * text that gives a classifier no token).
 */
public final class HandleInvalidOption {

    /** The values, as the stages' param takes them. */
    static final List<String> VALUES = List.of("error", "skip", "keep");

    @Option(names = "--handle-invalid", defaultValue = "error", paramLabel = "H",
        description = "A row the command cannot take (a null text; for predict, a text in which the model finds no "
            + "token): error (stop, naming its column, file and line), skip (leave the row out of the output) or keep "
            + "(keep it, with null outputs) (default ${DEFAULT-VALUE}).")
    String handleInvalid;

    /** The value, checked. */
    String get() {
        return Choices.check("--handle-invalid", handleInvalid, VALUES);
    }
}

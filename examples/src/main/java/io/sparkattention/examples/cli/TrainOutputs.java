package io.sparkattention.examples.cli;

import io.sparkattention.ml.classification.AttentionClassificationModel;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where {@code train} writes: the model directory ({@code --output}) and, if asked, the PyTorch
 * state_dict ({@code --export-pytorch}). Both are checked by the output-safety rule
 * ({@link OutputGuard}) before Spark starts, and kept clear of the inputs and of each other. Both
 * are written to hidden siblings and swapped in only once the model is fitted and every file is
 * complete, so bad input or a failed fit leaves the earlier outputs, or nothing.
 */
final class TrainOutputs {

    /** The command recorded in the model directory's marker. */
    static final String COMMAND = "train";

    private final Path model;
    private final Path export;

    private TrainOutputs(Path model, Path export) {
        this.model = model;
        this.export = export;
    }

    /**
     * Checks both outputs.
     *
     * @throws BadInputException naming the option and what is wrong
     */
    static TrainOutputs check(TrainCommand cmd) {
        local("--output", cmd.output);
        Path model = OutputGuard.of("--output", cmd.output, OutputKind.directory()).overwrite(cmd.overwrite)
            .input("--input", cmd.input).input("--initial-weights", cmd.initialWeights).check();
        Path export = null;
        if (cmd.exportPyTorch != null) {
            local("--export-pytorch", cmd.exportPyTorch);
            export = OutputGuard.of("--export-pytorch", cmd.exportPyTorch, OutputKind.stateDict())
                .overwrite(cmd.overwrite).input("--input", cmd.input).input("--initial-weights", cmd.initialWeights)
                .check();
            if (export.equals(model)) {
                throw new BadInputException("--export-pytorch " + cmd.exportPyTorch + " is the same path as --output "
                    + cmd.output + ": give the state_dict a file name of its own");
            }
            if (export.startsWith(model)) {
                throw new BadInputException("--export-pytorch " + cmd.exportPyTorch + " lies in --output "
                    + cmd.output + ", which is replaced as a whole: choose a file outside the model directory");
            }
        }
        return new TrainOutputs(model, export);
    }

    /** Outputs go to the driver's file system, where the atomic swap is a rename. */
    private static void local(String option, String path) {
        if (path != null && OutputGuard.isRemote(path)) {
            throw new BadInputException(option + " " + path + ": train writes to the local file system only; write "
                + "locally and copy the result");
        }
    }

    /** Saves the model (and its state_dict), then swaps them in. */
    void write(AttentionClassificationModel fitted) throws IOException {
        Path stagedModel = OutputSwap.sibling(model, "tmp");
        // Hadoop's local file system writes a checksum file beside a file: the export is staged in a
        // directory of its own, whose file alone is moved.
        Path stagedExport = export == null ? null : OutputSwap.sibling(export, "tmp");
        try {
            fitted.write().save(stagedModel.toUri().toString());
            OutputSwap.mark(stagedModel, COMMAND);
            Path exported = null;
            if (export != null) {
                Files.createDirectory(stagedExport);
                exported = stagedExport.resolve(export.getFileName());
                fitted.exportPyTorch(exported.toUri().toString());
            }
            OutputSwap.publish(stagedModel, model);
            if (exported != null) {
                OutputSwap.publish(exported, export);
            }
        } finally {
            OutputSwap.deleteQuietly(stagedModel);
            if (stagedExport != null) {
                OutputSwap.deleteQuietly(stagedExport);
            }
        }
    }
}

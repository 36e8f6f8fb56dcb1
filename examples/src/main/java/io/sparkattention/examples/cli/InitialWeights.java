package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import io.sparkattention.examples.common.OutputGuard;
import io.sparkattention.io.ClassifierStateDict;
import io.sparkattention.io.SafeTensors;
import io.sparkattention.nn.AttentionClassifierNetwork;
import io.sparkattention.nn.Pooling;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * {@code train --initial-weights}, checked before Spark starts when the file is local: a
 * safetensors state_dict of the reference classifier whose six tensors have the shapes its
 * {@code classifier.weight} (K×E) implies and finite values, with an E that {@code --num-heads}
 * divides. Whether E matches the data is checked by the stage once the input is read.
 */
final class InitialWeights {

    private InitialWeights() {
    }

    /**
     * Checks the file; a remote one (hdfs://, s3a://) is left to the stage.
     *
     * @param path     the option's value, or null when not given
     * @param numHeads the heads asked for
     * @throws BadInputException naming the option, the file and, where it applies, the tensor
     */
    static void check(String path, int numHeads) {
        if (path == null || OutputGuard.isRemote(path)) {
            return;
        }
        Path file = Paths.get(path.startsWith("file:") ? path.substring("file:".length()).replaceFirst("^//", "") : path);
        if (!Files.exists(file)) {
            throw new BadInputException("--initial-weights " + path + ": no such file");
        }
        if (!Files.isRegularFile(file)) {
            throw new BadInputException("--initial-weights " + path + ": not a file (expected a safetensors state_dict)");
        }
        try {
            SafeTensors tensors = SafeTensors.read(file);
            int[] ek = ClassifierStateDict.dimensions(tensors);
            HeadsOptions.checkDivides(ek[0], numHeads, "--num-heads", "the embedding width E",
                " of --initial-weights " + path + " (classifier.weight is " + ek[1] + "×" + ek[0] + ")");
            // Causal, residual and pooling do not change the tensors' shapes.
            AttentionClassifierNetwork layout = new AttentionClassifierNetwork(ek[0], numHeads, ek[1], false, true,
                Pooling.parse("mean"));
            ClassifierStateDict.load(tensors, layout.parameters(), layout.parameterCount());
        } catch (IOException e) {
            throw new BadInputException("--initial-weights: " + ErrorReporting.oneLine(e.getMessage()), e);
        }
    }
}

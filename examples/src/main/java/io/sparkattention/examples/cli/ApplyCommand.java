package io.sparkattention.examples.cli;

import io.sparkattention.ml.MultiHeadAttentionModel;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code spark-attention apply}: PyTorch's {@code nn.MultiheadAttention}, with weights from a
 * safetensors state_dict, over every row of a JSON lines or Parquet input.
 */
@Command(name = "apply", mixinStandardHelpOptions = true,
    description = {"Applies a PyTorch nn.MultiheadAttention (a safetensors state_dict) to every row: input "
        + "projections, attention over the heads, output projection. One row is one sequence; rows may differ in "
        + "length. Self-attention when the input has no key/value columns.",
        "Exit codes: 0 success; 2 bad input (one line on stderr naming the column, row, file or parameter; no output "
            + "left behind); 1 internal error."})
final class ApplyCommand implements Callable<Integer> {

    @Option(names = "--weights", required = true, paramLabel = "W.safetensors",
        description = "The module's state_dict: in_proj_weight (or q/k/v_proj_weight), out_proj.weight, and biases.")
    String weights;

    @Option(names = "--prefix", defaultValue = "", paramLabel = "P",
        description = "Name prefix of the module in the state_dict, e.g. self_attn. (default: none).")
    String prefix;

    @Option(names = "--num-heads", required = true, paramLabel = "H",
        description = "Number of heads (PyTorch does not store it); must divide the embedding dimension.")
    int numHeads;

    @Mixin
    AttentionOptions options;

    @Override
    public Integer call() throws Exception {
        if (numHeads < 1) {
            throw new BadInputException("--num-heads must be >= 1, got " + numHeads);
        }
        return AttentionRun.run("apply", options, Map.of("--weights", weights), this::model);
    }

    /** The model from the weights file; a file that is missing or not a state_dict is bad input. */
    private MultiHeadAttentionModel model() {
        try {
            return MultiHeadAttentionModel.fromSafeTensors(weights, numHeads, prefix);
        } catch (UncheckedIOException e) {
            throw new BadInputException("--weights: " + e.getCause().getMessage(), e);
        }
    }
}

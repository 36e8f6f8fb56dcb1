package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import io.sparkattention.ml.MultiHeadAttentionModel;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.UncheckedIOException;
import java.util.Map;

/**
 * {@code spark-attention apply}: PyTorch's {@code nn.MultiheadAttention}, with weights from a
 * safetensors state_dict, over every row of a JSON lines, CSV or Parquet input.
 */
@Command(name = "apply", mixinStandardHelpOptions = true,
    description = {"Applies a PyTorch nn.MultiheadAttention (a safetensors state_dict) to every row: input "
        + "projections, attention over the heads, output projection. One row is one sequence; rows may differ in "
        + "length. Self-attention when the input has no key/value columns.",
        "Input columns: query; optional key, value, key_length, attn_mask (boolean L×S, true = may attend), "
            + "attn_bias (L×S or H×L×S). Output: every input column plus attn_output (and attn_weights), rows in "
            + "input order; progress lines and a closing line on stdout.",
        "Exit codes: 0 success; 2 bad input (one line on stderr naming the column, row, file or parameter; no output "
            + "left behind); 1 internal error."})
final class ApplyCommand extends AttentionCommand<MultiHeadAttentionModel> {

    @Option(names = "--weights", required = true, paramLabel = "W.safetensors",
        description = "The module's state_dict: in_proj_weight (or q/k/v_proj_weight), out_proj.weight, and biases.")
    String weights;

    @Option(names = "--prefix", defaultValue = "", paramLabel = "P",
        description = "Name prefix of the module in the state_dict, e.g. self_attn. (default: none).")
    String prefix;

    @Option(names = "--num-heads", required = true, paramLabel = "H",
        description = "Number of heads (PyTorch does not store it); must divide the embedding dimension.")
    int numHeads;

    @Override
    void validateStage() {
        if (numHeads < 1) {
            throw new BadInputException("--num-heads must be >= 1, got " + numHeads);
        }
    }

    @Override
    Map<String, String> otherInputs() {
        return Map.of("--weights", weights);
    }

    /** The model from the weights file; a file that is missing or not a state_dict is bad input. */
    @Override
    MultiHeadAttentionModel stage() {
        try {
            return MultiHeadAttentionModel.fromSafeTensors(weights, numHeads, prefix);
        } catch (UncheckedIOException e) {
            throw new BadInputException("--weights: " + e.getCause().getMessage(), e);
        }
    }
}

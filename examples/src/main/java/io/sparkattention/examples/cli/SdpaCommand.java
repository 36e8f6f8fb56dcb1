package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import io.sparkattention.ml.ScaledDotProductAttention;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.Map;

/**
 * {@code spark-attention sdpa}: scaled dot-product attention over every row, the query, key and
 * value columns holding Q, K and V directly (no projections).
 */
@Command(name = "sdpa", mixinStandardHelpOptions = true,
    description = {"Scaled dot-product attention softmax(scale·Q·Kᵀ + bias + mask)·V over every row: query L×d, key "
        + "S×d, value S×dv (key and value default to the query). With --num-heads H the last dimension is split "
        + "into H heads.",
        "Input columns: query; optional key, value, key_length, attn_mask (boolean L×S, true = may attend), "
            + "attn_bias (L×S or H×L×S). Output: every input column plus attn_output (and attn_weights), rows in "
            + "input order; progress lines and a closing line on stdout.",
        "Exit codes: 0 success; 2 bad input (one line on stderr naming the column, row, file or parameter; no output "
            + "left behind); 1 internal error."})
final class SdpaCommand extends AttentionCommand<ScaledDotProductAttention> {

    @Option(names = "--num-heads", defaultValue = "1", paramLabel = "H",
        description = "Heads to split the last dimension into (default ${DEFAULT-VALUE}).")
    int numHeads;

    @Option(names = "--num-kv-heads", paramLabel = "HKV",
        description = "Key/value heads for grouped-query attention (default: --num-heads); must divide --num-heads. "
            + "Query head h uses key/value head h / (H / HKV); key and value rows hold HKV·head_dim values.")
    Integer numKvHeads;

    @Option(names = "--scale", paramLabel = "X", description = "Score scale (default 1/sqrt(head_dim)).")
    Double scale;

    @Override
    void validateStage() {
        if (numHeads < 1) {
            throw new BadInputException("--num-heads must be >= 1, got " + numHeads);
        }
        if (numKvHeads != null) {
            HeadsOptions.checkGroups(numHeads, numKvHeads, "--num-heads", "--num-kv-heads");
        }
        if (scale != null && (scale.isNaN() || scale.isInfinite())) {
            throw new BadInputException("--scale must be a finite number, got " + scale);
        }
    }

    @Override
    Map<String, String> otherInputs() {
        return Map.of();
    }

    @Override
    ScaledDotProductAttention stage() {
        ScaledDotProductAttention sdpa = new ScaledDotProductAttention().setNumHeads(numHeads);
        if (numKvHeads != null) {
            sdpa.setNumKvHeads(numKvHeads);
        }
        return scale == null ? sdpa : sdpa.setScale(scale);
    }
}

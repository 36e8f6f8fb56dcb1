package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import io.sparkattention.gpt.GptConfig;
import io.sparkattention.ml.lm.GenerationParamSet;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.List;

/**
 * {@code spark-attention generate}: a continuation of every prompt row by a GPT-2-style language
 * model ({@link io.sparkattention.ml.lm.GptLanguageModel#generate}), the input's columns kept.
 * Each row's sampling is keyed by its place in the input, so its output does not depend on
 * {@code --partitions}, its company or a retry.
 */
@Command(name = "generate", mixinStandardHelpOptions = true,
    description = {"Continues every prompt row of a JSON lines, CSV or Parquet input with a GPT-2-style causal "
        + "language model (a Hugging Face GPT-2 directory: config.json, model.safetensors, tokenizer.json for texts), "
        + "with a KV cache per row. Output: every input column plus generated_ids (the new ids only) and, with a "
        + "tokenizer, generated_text (them decoded); rows in input order. --temperature 0 is greedy; sampling draws "
        + "from a generator keyed by (--seed, the row's place in the input, step), so a row's output is the same under "
        + "any --partitions and through retries.",
        "Every prompt is checked before the generation starts: an id outside [0, vocab_size), or a prompt whose "
            + "length plus --max-new-tokens exceeds the model's positions, names the file and line.",
        "stdout: a progress line every " + RowProgress.INTERVAL_SECONDS + " s (rows done of the total, rows per "
            + "second, time left) and a last line saying how many rows were written where.",
        "Exit codes: 0 success; 2 bad input (one line on stderr naming the model, column, line, file or option; no "
            + "output left behind); 1 internal error."})
final class GenerateCommand extends LanguageModelCommand {

    /** The columns the command adds. */
    static final String GENERATED_IDS = "generated_ids";
    static final String GENERATED_TEXT = "generated_text";

    @Option(names = "--max-new-tokens", paramLabel = "N",
        defaultValue = "" + GenerationParamSet.DEFAULT_MAX_NEW_TOKENS,
        description = "Most new ids per row, at least 1 (default ${DEFAULT-VALUE}); a prompt plus N must fit the "
            + "model's positions.")
    int maxNewTokens;

    @Option(names = "--temperature", paramLabel = "T", defaultValue = "0",
        description = "Divides the logits before sampling; 0 is greedy, the most likely id (default ${DEFAULT-VALUE}).")
    double temperature;

    @Option(names = "--top-k", paramLabel = "K", defaultValue = "0",
        description = "Sample among the K most likely ids only; 0: all (default ${DEFAULT-VALUE}).")
    int topK;

    @Option(names = "--top-p", paramLabel = "P", defaultValue = "1",
        description = "Sample among the most likely ids whose probabilities add up to at least P, in (0, 1] "
            + "(default ${DEFAULT-VALUE}: all).")
    double topP;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "0",
        description = "The sampling's seed (default ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--eos-id", paramLabel = "ID",
        description = "The end-of-text id (GPT-2's: 50256): a row stops after generating it, its last new id "
            + "(default: none).")
    Integer eosId;

    @Override
    String defaultTextCol() {
        return "prompt";
    }

    @Override
    List<String> added() {
        // The text is written when the directory has a tokenizer (read in prepare; known once it is).
        return lm != null && lm.hasTokenizer() ? List.of(GENERATED_IDS, GENERATED_TEXT) : List.of(GENERATED_IDS);
    }

    @Override
    boolean prompts() {
        return true;
    }

    @Override
    void validateSettings() {
        if (maxNewTokens < 1) {
            throw new BadInputException("--max-new-tokens must be >= 1, got " + maxNewTokens);
        }
        if (!(temperature >= 0) || Double.isInfinite(temperature)) {
            throw new BadInputException("--temperature must be a finite number >= 0 (0: greedy), got " + temperature);
        }
        if (topK < 0) {
            throw new BadInputException("--top-k must be >= 0 (0: all ids), got " + topK);
        }
        if (!(topP > 0 && topP <= 1)) {
            throw new BadInputException("--top-p must be in (0, 1], got " + topP);
        }
        if (eosId != null && eosId < 0) {
            throw new BadInputException("--eos-id must be >= 0, got " + eosId);
        }
    }

    @Override
    void checkAgainst(GptConfig config) {
        if (maxNewTokens >= config.positions()) {
            throw new BadInputException("--max-new-tokens " + maxNewTokens + " leaves no room for a prompt in the "
                + "model's " + config.positions() + " positions (n_positions)");
        }
        if (eosId != null && eosId >= config.vocabSize()) {
            throw new BadInputException("--eos-id " + eosId + " is outside the model's vocabulary [0, "
                + config.vocabSize() + ")");
        }
    }

    @Override
    void configure(String index) {
        lm.setGeneratedIdsCol(GENERATED_IDS).setGeneratedTextCol(GENERATED_TEXT)
            .setMaxNewTokens(maxNewTokens).setTemperature(temperature).setTopK(topK).setTopP(topP).setSeed(seed)
            .setEosId(eosId == null ? -1 : eosId).setRowKeyCol(index);
    }

    @Override
    Dataset<Row> work(Dataset<Row> rows) {
        return lm.generate(rows);
    }
}

package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import io.sparkattention.gpt.GptConfig;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code spark-attention perplexity}: every row's log-likelihood under a GPT-2-style language model
 * ({@link io.sparkattention.ml.lm.GptLanguageModel}'s scoring), the input's columns kept.
 */
@Command(name = "perplexity", mixinStandardHelpOptions = true,
    description = {"Scores every row of a JSON lines, CSV or Parquet input with a GPT-2-style causal language model "
        + "(a Hugging Face GPT-2 directory: config.json, model.safetensors, tokenizer.json for texts). Output: every "
        + "input column plus log_prob (the natural-log probability of tokens 1 ... L-1, each given the tokens before "
        + "it), tokens (L-1) and perplexity (exp(-log_prob / tokens); null for a row of one token), and with "
        + "--token-log-probs token_log_probs (each token's log-probability); rows in input order. Rows longer than the "
        + "model's positions are scored with a sliding window (--stride). Each row's numbers are the same bits "
        + "under any --partitions.",
        "Every row's ids are checked before the scoring starts: an id outside [0, vocab_size) names the file and line.",
        "stdout: a progress line every " + RowProgress.INTERVAL_SECONDS + " s (rows done of the total, rows per "
            + "second, time left) and a last line saying how many rows were written where.",
        "Exit codes: 0 success; 2 bad input (one line on stderr naming the model, column, line, file or option; no "
            + "output left behind); 1 internal error."})
final class PerplexityCommand extends LanguageModelCommand {

    /** The columns the command adds. */
    static final String LOG_PROB = "log_prob";
    static final String TOKENS = "tokens";
    static final String PERPLEXITY = "perplexity";
    static final String TOKEN_LOG_PROBS = "token_log_probs";

    @Option(names = "--stride", paramLabel = "S",
        description = "For rows longer than the model's positions: windows of that many tokens, moved S tokens at a "
            + "time, each token scored once with as much left context as the window holds (Hugging Face's recipe; "
            + "1 to the positions; default: half the positions).")
    Integer stride;

    @Option(names = "--token-log-probs", description = "Also write token_log_probs, each token's log-probability.")
    boolean tokenLogProbs;

    @Override
    String defaultTextCol() {
        return "text";
    }

    @Override
    List<String> added() {
        List<String> added = new ArrayList<>(List.of(LOG_PROB, TOKENS, PERPLEXITY));
        if (tokenLogProbs) {
            added.add(TOKEN_LOG_PROBS);
        }
        return added;
    }

    @Override
    boolean prompts() {
        return false;
    }

    @Override
    void validateSettings() {
        if (stride != null && stride < 1) {
            throw new BadInputException("--stride must be >= 1, got " + stride);
        }
    }

    @Override
    void checkAgainst(GptConfig config) {
        if (stride != null && stride > config.positions()) {
            throw new BadInputException("--stride " + stride + " is more than the model's " + config.positions()
                + " positions (n_positions, the window)");
        }
    }

    @Override
    void configure(String index) {
        lm.setOutputCol(LOG_PROB).setTokensCol(TOKENS).setPerplexityCol(PERPLEXITY).setTokenLogProbs(tokenLogProbs)
            .setTokenLogProbsCol(TOKEN_LOG_PROBS);
        if (stride != null) {
            lm.setStride(stride);
        }
    }

    @Override
    Dataset<Row> work(Dataset<Row> rows) {
        return lm.transform(rows);
    }
}

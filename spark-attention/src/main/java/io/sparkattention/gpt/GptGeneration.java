package io.sparkattention.gpt;

import java.io.Serializable;

/**
 * How {@link GptDecoder#generate} continues each prompt, as Hugging Face's {@code generate} reads
 * the same settings: logits divided by {@code temperature}, then the {@code topK} best kept, then
 * the smallest set of best tokens whose probability reaches {@code topP} (at least one), then one
 * token drawn from what is left. Temperature 0 is greedy (the best logit, the lowest id on a tie)
 * and ignores topK and topP.
 *
 * @param maxNewTokens   new tokens per prompt at most, ≥ 1
 * @param temperature    ≥ 0, finite; 0 = greedy
 * @param topK           ≥ 0; 0 = off
 * @param topP           in (0, 1]; 1 = off
 * @param eosId          the end-of-text id that stops a row (kept as its last new id), or −1 for none
 * @param seed           the sampling generator's seed (draws keyed by seed, row key and step)
 * @param truncatePrompt whether a prompt too long for {@code positions − maxNewTokens} keeps its last
 *                       tokens; otherwise it is refused
 */
public record GptGeneration(int maxNewTokens, double temperature, int topK, double topP, int eosId, long seed,
                            boolean truncatePrompt) implements Serializable {

    /** @throws IllegalArgumentException naming the first setting out of range */
    public GptGeneration {
        if (maxNewTokens < 1) {
            throw new IllegalArgumentException("maxNewTokens must be >= 1, got " + maxNewTokens);
        }
        if (!(temperature >= 0) || Double.isInfinite(temperature)) {
            throw new IllegalArgumentException("temperature must be finite and >= 0, got " + temperature);
        }
        if (topK < 0) {
            throw new IllegalArgumentException("topK must be >= 0 (0 = off), got " + topK);
        }
        if (!(topP > 0 && topP <= 1)) {
            throw new IllegalArgumentException("topP must be in (0, 1], got " + topP);
        }
        if (eosId < -1) {
            throw new IllegalArgumentException("eosId must be an id >= 0, or -1 for none, got " + eosId);
        }
    }

    /** Greedy decoding of {@code maxNewTokens} tokens, no end-of-text id, prompts never truncated. */
    public static GptGeneration greedy(int maxNewTokens) {
        return new GptGeneration(maxNewTokens, 0.0, 0, 1.0, -1, 0L, false);
    }

    /** Whether every step takes the best logit (temperature 0). */
    public boolean isGreedy() {
        return temperature == 0;
    }
}

package io.sparkattention.examples.bench;

import io.sparkattention.gpt.GptDecoder;

import java.util.ArrayList;
import java.util.List;

/**
 * Whether two contenders' greedy ids are the same computation's: equal, or first different at a
 * step where the two candidates' logits (the library's, on the prefix both share) lie within a
 * tolerance of each other, a tie that float32 rounding may break either way. After such a step
 * the continuations differ and are not compared.
 */
final class GreedyAgreement {

    private GreedyAgreement() {
    }

    /**
     * @param ours   each prompt's new ids from the library
     * @param theirs each prompt's new ids from the peer
     * @return null when every prompt's ids are equal; else each tie, "prompt r step s (gap g)"
     * @throws IllegalStateException naming the prompt and step of a difference that is not a tie
     */
    static String check(GptDecoder decoder, int[][] prompts, int[][] ours, int[][] theirs, double tolerance) {
        List<String> ties = new ArrayList<>();
        int vocab = decoder.config().vocabSize();
        for (int r = 0; r < prompts.length; r++) {
            int step = 0;
            while (step < ours[r].length && ours[r][step] == theirs[r][step]) {
                step++;
            }
            if (step == ours[r].length) {
                continue;
            }
            int[] prefix = new int[prompts[r].length + step];
            System.arraycopy(prompts[r], 0, prefix, 0, prompts[r].length);
            System.arraycopy(ours[r], 0, prefix, prompts[r].length, step);
            float[] logits = decoder.logits(prefix);
            int last = (prefix.length - 1) * vocab;
            double gap = Math.abs(logits[last + ours[r][step]] - logits[last + theirs[r][step]]);
            String where = "prompt " + r + " step " + step + " (ids " + ours[r][step] + " and " + theirs[r][step]
                + ", logit gap " + gap + ")";
            if (!(gap <= tolerance)) {
                throw new IllegalStateException("lm_generate: the greedy ids differ at " + where + ", more than a "
                    + "float32 tie (tolerance " + tolerance + "): nothing timed");
            }
            ties.add(where);
        }
        return ties.isEmpty() ? null : String.join("; ", ties);
    }
}

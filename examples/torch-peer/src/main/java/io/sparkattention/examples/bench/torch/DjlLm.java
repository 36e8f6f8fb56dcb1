package io.sparkattention.examples.bench.torch;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.types.Shape;
import io.sparkattention.examples.bench.TorchLm;

/**
 * The language-model benchmark's PyTorch contender: {@link DjlGpt} in float32 without gradients.
 * Scoring runs right-padded batches whose inputs are made once, as Hugging Face's perplexity
 * recipe feeds {@code GPT2LMHeadModel}: logits at every position, log-softmax, each next id's
 * entry gathered. Generation runs {@code generate(do_sample=False)}'s loop: the prompts' forward
 * with the head on the last position only, then one forward per new token over the cache.
 * Each run's temporaries are freed when it ends.
 */
final class DjlLm implements TorchLm {

    private final NDManager manager;
    private final DjlGpt gpt;

    DjlLm(NDManager manager, Weights weights) {
        this.manager = manager;
        this.gpt = new DjlGpt(weights, manager.newSubManager());
    }

    @Override
    public ScoreBatch scoreBatch(int[][] ids) {
        int longest = 0;
        for (int[] row : ids) {
            if (row.length == 0) {
                throw new IllegalArgumentException("a scoring row needs at least one id");
            }
            longest = Math.max(longest, row.length);
        }
        int b = ids.length, t = longest;
        long[] padded = new long[b * t];
        // each position's next id (0 past a row's end: gathered, then dropped)
        long[] next = new long[b * Math.max(t - 1, 0)];
        int[] lengths = new int[b];
        for (int r = 0; r < b; r++) {
            lengths[r] = ids[r].length;
            for (int j = 0; j < ids[r].length; j++) {
                padded[r * t + j] = ids[r][j];
                if (j > 0) {
                    next[r * (t - 1) + j - 1] = ids[r][j];
                }
            }
        }
        NDManager inputs = manager.newSubManager();
        NDArray input = inputs.create(padded, new Shape(b, t));
        NDArray targets = inputs.create(next, new Shape(b, Math.max(t - 1, 0), 1));
        NDArray bias = DjlGpt.causalBias(inputs, lengths, 0, t);
        return new ScoreBatch() {
            @Override
            public int longest() {
                return t;
            }

            @Override
            public float[][] run() {
                float[] gathered;
                try (NDScope scope = new NDScope()) {
                    scope.suppressNotUsedWarning();
                    NDArray states = gpt.hidden(input, bias, gpt.newCache());
                    // [B, T, V] log-probabilities; position j predicts id j + 1
                    NDArray logProbs = gpt.logits(states).logSoftmax(-1);
                    gathered = t < 2 ? new float[0]
                        : logProbs.get(":, :-1, :").gather(targets, 2).toFloatArray();
                }
                float[][] out = new float[b][];
                for (int r = 0; r < b; r++) {
                    out[r] = new float[lengths[r] - 1];
                    System.arraycopy(gathered, r * (t - 1), out[r], 0, out[r].length);
                }
                return out;
            }

            @Override
            public void close() {
                inputs.close();
            }
        };
    }

    @Override
    public int[][] generateGreedy(int[][] prompts, int newTokens) {
        int b = prompts.length, length = prompts[0].length;
        if (newTokens < 1) {
            throw new IllegalArgumentException("newTokens must be >= 1, got " + newTokens);
        }
        long[] ids = new long[b * length];
        for (int r = 0; r < b; r++) {
            if (prompts[r].length != length) {
                throw new IllegalArgumentException("prompts of one length only: prompt " + r + " has "
                    + prompts[r].length + " ids, prompt 0 has " + length);
            }
            for (int j = 0; j < length; j++) {
                ids[r * length + j] = prompts[r][j];
            }
        }
        int[][] out = new int[b][newTokens];
        NDManager inputs = manager.newSubManager();
        DjlGpt.Cache cache = gpt.newCache();
        NDArray states = null;
        try {
            // each forward in a scope of its own, freeing its temporaries; the cache and the last
            // states outlive it, and the cache's previous arrays are freed as it grows
            try (NDScope scope = new NDScope()) {
                scope.suppressNotUsedWarning();
                states = gpt.hidden(inputs.create(ids, new Shape(b, length)),
                    DjlGpt.causalBias(inputs, new int[] {length}, 0, length), cache);
                NDScope.unregister(states);
                cache.keep();
            }
            for (int n = 0; n < newTokens; n++) {
                try (NDScope scope = new NDScope()) {
                    scope.suppressNotUsedWarning();
                    // the head on each row's last position only: [B, V]
                    long[] chosen = gpt.logits(states.get(":, -1, :")).argMax(-1).toLongArray();
                    for (int r = 0; r < b; r++) {
                        out[r][n] = Math.toIntExact(chosen[r]);
                    }
                    if (n + 1 < newTokens) {
                        NDArray next = gpt.hidden(inputs.create(chosen, new Shape(b, 1)), null, cache);
                        NDScope.unregister(next);
                        cache.keep();
                        states.close();
                        states = next;
                    }
                }
            }
        } finally {
            if (states != null) {
                states.close();
            }
            cache.close();
            inputs.close();
        }
        return out;
    }

    @Override
    public void close() {
        manager.close();
    }
}

package io.sparkattention.gpt;

import io.sparkattention.nn.KeyValueCache;

/**
 * Generation with a KV cache ({@link GptDecoder#generate}) for a group of rows:
 * <pre>
 *   prefill:  the prompts through the blocks, stacked (≤ STACK_TOKENS a call); their keys and
 *             values kept per layer in each row's KeyValueCache (capacity prompt + maxNewTokens − 1:
 *             memory ∝ the row's length); each prompt's last row through ln_f and the head
 *             → its first new token
 *   step k:   the active rows' last tokens (one row each, at position prompt + k − 1) through the
 *             blocks together: one GEMM per projection for all of them, each row's one query over
 *             its own cache → a×V logits → each row's next token ({@link TokenSampler})
 * </pre>
 * A row stops at its {@code eosId} (kept as its last new id) or after {@code maxNewTokens}; the
 * others go on, the finished one's caches dropped from the step. Every buffer of the step loop is
 * allocated before it (the caches, the scratch, the per-row arrays), none per token.
 *
 * <p>Rows run together only when the projections compute rows independently
 * ({@link GptStack#rowsIndependent()}); otherwise each row runs alone. Either way a row's ids are
 * those it gets alone.
 */
final class GptGenerator {

    /**
     * Receives each step's logits (tests compare them with a full recompute). It runs inside the
     * generation, on its thread's scratch: it must copy what it keeps and not call the decoder.
     */
    interface StepLogits {
        /** Row {@code row}'s logits for its new token {@code step}: {@code logits[off … off + V)}. */
        void accept(int row, int step, float[] logits, int off);
    }

    private GptGenerator() {
    }

    /** New ids of every prompt (arguments checked, prompts truncated by the caller). */
    static int[][] generate(GptStack st, int[][] prompts, long[] rowKeys, GptGeneration g, GptScratch s,
                            TokenSampler sampler, StepLogits listener) {
        int[][] out = new int[prompts.length][];
        if (st.rowsIndependent()) {
            int[] all = new int[prompts.length];
            for (int r = 0; r < all.length; r++) {
                all[r] = r;
            }
            run(st, prompts, rowKeys, all, g, s, sampler, listener, out);
        } else {
            for (int r = 0; r < prompts.length; r++) {
                run(st, prompts, rowKeys, new int[] {r}, g, s, sampler, listener, out);
            }
        }
        return out;
    }

    /** Generates for rows {@code group} together, writing their new ids into {@code out}. */
    private static void run(GptStack st, int[][] prompts, long[] rowKeys, int[] group, GptGeneration g,
                            GptScratch s, TokenSampler sampler, StepLogits listener, int[][] out) {
        GptConfig c = st.config;
        int n = group.length, E = c.hidden(), V = c.vocabSize(), layers = c.layers(), max = g.maxNewTokens();
        KeyValueCache[][] caches = new KeyValueCache[layers][n];
        int[][] generated = new int[n][max];
        int[] produced = new int[n];
        for (int i = 0; i < n; i++) {
            for (int layer = 0; layer < layers; layer++) {
                caches[layer][i] = new KeyValueCache(prompts[group[i]].length + max - 1, E);
            }
        }
        prefill(st, prompts, rowKeys, group, caches, g, s, sampler, listener, generated, produced);
        // The active rows, compacted as rows finish: active[a] is the group index of the a-th.
        int[] active = new int[n];
        int count = 0;
        for (int i = 0; i < n; i++) {
            if (!finished(generated[i], produced[i], g)) {
                active[count++] = i;
            }
        }
        int[] starts = new int[n + 1];
        for (int i = 0; i <= n; i++) {
            starts[i] = i;
        }
        KeyValueCache[][] step = new KeyValueCache[layers][n];
        s.ensure(n, E, c.inner());
        s.ensureHead(n, E, V);
        while (count > 0) {
            for (int a = 0; a < count; a++) {
                int i = active[a], r = group[i];
                st.embed(generated[i], produced[i] - 1, 1, prompts[r].length + produced[i] - 1, s.x, a);
                for (int layer = 0; layer < layers; layer++) {
                    step[layer][a] = caches[layer][i];
                }
            }
            st.cachedForward(starts, count, step, s);
            st.head.apply(s.x, count, s.logits);
            int kept = 0;
            for (int a = 0; a < count; a++) {
                int i = active[a], r = group[i];
                if (listener != null) {
                    listener.accept(r, produced[i], s.logits, a * V);
                }
                generated[i][produced[i]] = sampler.choose(s.logits, a * V, V, g, rowKeys[r], produced[i]);
                produced[i]++;
                if (!finished(generated[i], produced[i], g)) {
                    active[kept++] = i;
                }
            }
            count = kept;
        }
        for (int i = 0; i < n; i++) {
            out[group[i]] = java.util.Arrays.copyOf(generated[i], produced[i]);
        }
    }

    /** Every prompt of the group through the blocks, filling its caches, and its first new token chosen. */
    private static void prefill(GptStack st, int[][] prompts, long[] rowKeys, int[] group, KeyValueCache[][] caches,
                                GptGeneration g, GptScratch s, TokenSampler sampler, StepLogits listener,
                                int[][] generated, int[] produced) {
        GptConfig c = st.config;
        int n = group.length, E = c.hidden(), V = c.vocabSize();
        int first = 0;
        while (first < n) {
            int end = first + 1, tokens = prompts[group[first]].length;
            while (end < n && tokens + prompts[group[end]].length <= GptScorer.STACK_TOKENS) {
                tokens += prompts[group[end++]].length;
            }
            int count = end - first;
            int[] starts = new int[count + 1];
            KeyValueCache[][] part = new KeyValueCache[c.layers()][count];
            s.ensure(tokens, E, c.inner());
            for (int i = 0; i < count; i++) {
                int[] p = prompts[group[first + i]];
                st.embed(p, 0, p.length, 0, s.x, starts[i]);
                starts[i + 1] = starts[i] + p.length;
                for (int layer = 0; layer < c.layers(); layer++) {
                    part[layer][i] = caches[layer][first + i];
                }
            }
            st.cachedForward(starts, count, part, s);
            s.ensureHead(count, E, V);
            for (int i = 0; i < count; i++) {
                System.arraycopy(s.x, (starts[i + 1] - 1) * E, s.headInput, i * E, E);
            }
            st.head.apply(s.headInput, count, s.logits);
            for (int i = 0; i < count; i++) {
                int r = group[first + i];
                if (listener != null) {
                    listener.accept(r, 0, s.logits, i * V);
                }
                generated[first + i][0] = sampler.choose(s.logits, i * V, V, g, rowKeys[r], 0);
                produced[first + i] = 1;
            }
            first = end;
        }
    }

    private static boolean finished(int[] generated, int produced, GptGeneration g) {
        return produced >= g.maxNewTokens() || g.eosId() >= 0 && generated[produced - 1] == g.eosId();
    }
}

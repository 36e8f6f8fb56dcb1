package io.sparkattention.gpt;

import java.util.ArrayList;
import java.util.List;

/**
 * Each token's log-probability given the ones before it, for several rows at once
 * ({@link GptDecoder#tokenLogProbs(int[][], int)}).
 *
 * <p><b>Windows.</b> A row of L ≤ positions tokens is one window: the log-softmax of logits[t − 1]
 * at ids[t] for t = 1 … L − 1. A longer row is cut as Hugging Face's perplexity recipe cuts it:
 * windows {@code [b, min(b + P, L))} for b = 0, stride, 2·stride, … until one reaches L, each
 * run as a row of its own (positions from 0), each scoring the tokens the previous windows did
 * not, {@code [max(previous end, b + 1), end)}; so every token t ≥ 1 is scored once, with the
 * window's context before it (P − stride tokens at least, once past the first window).
 *
 * <p><b>Stacking.</b> When the projections compute rows independently
 * ({@link GptStack#rowsIndependent()}) windows are stacked, up to {@value #STACK_TOKENS} tokens a
 * call (one window may exceed it alone), and the head's rows are gathered across windows
 * {@value #HEAD_ROWS} at a time; otherwise each window runs alone and its head rows are gathered
 * from it only. Either way a row's numbers are bit for bit what it gets alone. Only the rows whose
 * next token is scored go through the head (not a window's last).
 *
 * <p><b>The log-softmax</b> is {@code logits[id] − logsumexp(logits)}, the normaliser accumulated
 * in float64 ({@link DecoderMath#logSumExp}).
 */
final class GptScorer {

    /** Most tokens stacked into one pass of the blocks: bounds the M×F activations of a call. */
    static final int STACK_TOKENS = 2048;
    /** Rows the head projects per call: a HEAD_ROWS×V logits buffer (25 MiB at GPT-2's 50,257 ids). */
    static final int HEAD_ROWS = 128;

    private static final DecoderMath MATH = DecoderMath.INSTANCE;

    private GptScorer() {
    }

    /** One window: row, ids {@code [begin, end)}, scored tokens {@code [from, end)}. */
    private record Window(int row, int begin, int end, int from) {
        int length() {
            return end - begin;
        }
    }

    /** The windows of a row of L tokens, P positions, as the class comment cuts them. */
    private static void windows(int row, int L, int P, int stride, List<Window> out) {
        int previousEnd = 0;
        for (int begin = 0; ; begin += stride) {
            int end = Math.min(begin + P, L);
            int from = Math.max(previousEnd, begin + 1);
            if (from < end) {
                out.add(new Window(row, begin, end, from));
            }
            previousEnd = end;
            if (end >= L) {
                return;
            }
        }
    }

    /** Log-probabilities of every row (arguments checked by the caller). */
    static double[][] score(GptStack st, int[][] batch, int stride, GptScratch s) {
        GptConfig c = st.config;
        double[][] out = new double[batch.length][];
        List<Window> windows = new ArrayList<>();
        for (int r = 0; r < batch.length; r++) {
            out[r] = new double[Math.max(0, batch[r].length - 1)];
            windows(r, batch[r].length, c.positions(), stride, windows);
        }
        boolean stack = st.rowsIndependent();
        int g = 0;
        while (g < windows.size()) {
            int end = g + 1, tokens = windows.get(g).length();
            while (stack && end < windows.size() && tokens + windows.get(end).length() <= STACK_TOKENS) {
                tokens += windows.get(end).length();
                end++;
            }
            run(st, batch, windows.subList(g, end), tokens, out, s);
            g = end;
        }
        return out;
    }

    /** One stacked pass over windows of {@code tokens} tokens in all, then their scored rows through the head. */
    private static void run(GptStack st, int[][] batch, List<Window> group, int tokens, double[][] out,
                            GptScratch s) {
        GptConfig c = st.config;
        int E = c.hidden(), V = c.vocabSize();
        s.ensure(tokens, E, c.inner());
        int[] starts = new int[group.size() + 1];
        for (int i = 0; i < group.size(); i++) {
            Window w = group.get(i);
            st.embed(batch[w.row], w.begin, w.length(), 0, s.x, starts[i]);
            starts[i + 1] = starts[i] + w.length();
        }
        st.forward(starts, group.size(), s, -1, null);
        s.ensureHead(HEAD_ROWS, E, V);
        int[] rows = new int[HEAD_ROWS];
        int[] targets = new int[HEAD_ROWS];
        int k = 0;
        for (int i = 0; i < group.size(); i++) {
            Window w = group.get(i);
            for (int t = w.from; t < w.end; t++) {
                System.arraycopy(s.x, (starts[i] + t - 1 - w.begin) * E, s.headInput, k * E, E);
                rows[k] = w.row;
                targets[k] = t;
                if (++k == HEAD_ROWS) {
                    head(st, batch, k, rows, targets, out, s);
                    k = 0;
                }
            }
        }
        head(st, batch, k, rows, targets, out, s);
    }

    /** The head over k gathered rows: row i scores token {@code targets[i]} of row {@code rows[i]}. */
    private static void head(GptStack st, int[][] batch, int k, int[] rows, int[] targets, double[][] out,
                             GptScratch s) {
        if (k == 0) {
            return;
        }
        int V = st.config.vocabSize();
        st.head.apply(s.headInput, k, s.logits);
        for (int i = 0; i < k; i++) {
            int t = targets[i];
            out[rows[i]][t - 1] = s.logits[i * V + batch[rows[i]][t]] - MATH.logSumExp(s.logits, i * V, V);
        }
    }
}

package io.sparkattention.gpt;

import io.sparkattention.nn.CounterRandom;

import java.util.Arrays;

/**
 * The choice of the next token from a row of logits, as Hugging Face's {@code generate} makes it
 * ({@link GptGeneration}): greedy takes the best logit (the lowest id on a tie, as
 * {@code torch.argmax}); sampling divides by the temperature, keeps the top-k logits (every logit
 * equal to the k-th too, as {@code TopKLogitsWarper}), then the nucleus: the smallest set of the
 * best tokens whose probability reaches top-p (at least one, {@code TopPLogitsWarper}), and draws
 * one token from the softmax of what is left, in float64.
 *
 * <p>The draw is {@link CounterRandom}'s uniform keyed by (seed, step, row key), so a row's tokens
 * depend on its own logits and key alone. The nucleus is found without sorting the vocabulary:
 * the tokens of weight at least τ (τ = 1/16, 1/256, … of the best token's) are collected until
 * their mass reaches top-p; only those few are sorted.
 *
 * <p>Holds buffers reused from token to token (nothing is allocated per token): one per thread.
 */
final class TokenSampler {

    /** The site of the sampling draws in {@link CounterRandom#key}'s last counter. */
    static final long SAMPLING_SITE = 0x6770745f73616d70L;
    /** The nucleus search lowers its weight threshold by this factor per pass. */
    private static final double THRESHOLD_STEP = 1.0 / 16;

    private double[] weights = new double[0];
    private float[] heap = new float[0];
    private long[] candidates = new long[0];

    /** The greedy choice: the index of the largest of {@code x[off … off + n)}, the first on a tie. */
    static int argmax(float[] x, int off, int n) {
        int best = 0;
        float max = x[off];
        for (int j = 1; j < n; j++) {
            if (x[off + j] > max) {
                max = x[off + j];
                best = j;
            }
        }
        return best;
    }

    /** The next token from {@code logits[off … off + V)} for draw (step, rowKey) of {@code g}. */
    int choose(float[] logits, int off, int V, GptGeneration g, long rowKey, int step) {
        if (g.isGreedy()) {
            return argmax(logits, off, V);
        }
        if (weights.length < V) {
            weights = new double[V];
            candidates = new long[V];
        }
        float floor = g.topK() > 0 && g.topK() < V ? kthLargest(logits, off, V, g.topK()) : Float.NEGATIVE_INFINITY;
        float max = logits[off + argmax(logits, off, V)];
        double total = 0;
        for (int j = 0; j < V; j++) {
            float l = logits[off + j];
            double w = l >= floor ? Math.exp(((double) l - max) / g.temperature()) : 0.0;
            weights[j] = w;
            total += w;
        }
        double u = CounterRandom.uniform(CounterRandom.key(g.seed(), step, rowKey, SAMPLING_SITE), 0);
        if (g.topP() >= 1) {
            return draw(V, u * total);
        }
        return nucleus(logits, off, V, g.topP() * total, u);
    }

    /** Token j with the running sum of weights in index order first above {@code target}. */
    private int draw(int V, double target) {
        double sum = 0;
        int last = 0;
        for (int j = 0; j < V; j++) {
            if (weights[j] > 0) {
                sum += weights[j];
                last = j;
                if (sum > target) {
                    return j;
                }
            }
        }
        return last;
    }

    /** The draw from the smallest set of best tokens whose weight reaches {@code mass}. */
    private int nucleus(float[] logits, int off, int V, double mass, double u) {
        int count = 0;
        for (double tau = THRESHOLD_STEP; ; tau *= THRESHOLD_STEP) {
            double sum = 0;
            count = 0;
            for (int j = 0; j < V; j++) {
                if (weights[j] >= tau) {
                    sum += weights[j];
                    candidates[count++] = ((long) sortable(logits[off + j]) << 32) | (~j & 0xffffffffL);
                }
            }
            if (sum >= mass || tau < Double.MIN_NORMAL) {
                break;
            }
        }
        Arrays.sort(candidates, 0, count);
        double kept = 0;
        int size = 0;
        while (size < count) {
            kept += weights[index(candidates[count - 1 - size])];
            size++;
            if (kept >= mass) {
                break;
            }
        }
        double target = u * kept, sum = 0;
        for (int i = 0; i < size; i++) {
            int j = index(candidates[count - 1 - i]);
            sum += weights[j];
            if (sum > target) {
                return j;
            }
        }
        return index(candidates[count - size]);
    }

    /** A candidate's token: sorted by logit, then by lower id first when read from the end. */
    private static int index(long candidate) {
        return ~(int) candidate;
    }

    /** A float's bits as an int ordered as the floats are. */
    private static int sortable(float f) {
        int b = Float.floatToIntBits(f);
        return b >= 0 ? b : b ^ 0x7fffffff;
    }

    /** The k-th largest of {@code x[off … off + n)} (1 ≤ k &lt; n), by a min-heap of the k largest. */
    private float kthLargest(float[] x, int off, int n, int k) {
        if (heap.length < k) {
            heap = new float[k];
        }
        int size = 0;
        for (int j = 0; j < n; j++) {
            float v = x[off + j];
            if (size < k) {
                int i = size++;
                while (i > 0 && heap[(i - 1) / 2] > v) {
                    heap[i] = heap[(i - 1) / 2];
                    i = (i - 1) / 2;
                }
                heap[i] = v;
            } else if (v > heap[0]) {
                siftDown(v, k);
            }
        }
        return heap[0];
    }

    private void siftDown(float v, int size) {
        int i = 0;
        while (true) {
            int c = 2 * i + 1;
            if (c >= size) {
                break;
            }
            if (c + 1 < size && heap[c + 1] < heap[c]) {
                c++;
            }
            if (heap[c] >= v) {
                break;
            }
            heap[i] = heap[c];
            i = c;
        }
        heap[i] = v;
    }
}

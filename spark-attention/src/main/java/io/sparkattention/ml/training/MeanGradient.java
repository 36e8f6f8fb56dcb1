package io.sparkattention.ml.training;

import io.sparkattention.nn.GradientClipping;
import io.sparkattention.nn.GradientSums;
import io.sparkattention.nn.Optimizer;

import java.util.stream.IntStream;

/**
 * A step's weighted mean gradient Σ gradient / Σ weight, optionally clipped by its global norm
 * ({@code clip_grad_norm_}), read by the optimiser a range at a time from the step's
 * {@link GradientSums}: for a fine-tuned encoder the flat float64 mean (22.7 million values,
 * 182 MB) never exists on the driver. Value i is {@code sum[i] / weight}, times the clipping
 * coefficient when the norm exceeds the bound: the bits of dividing a flat copy in place and
 * clipping it with {@link GradientClipping#clipByGlobalNorm}, whose chunks of
 * {@link GradientClipping#NORM_CHUNK} squares are summed here on the common fork-join pool, each
 * chunk's squares one chain in flat order. A chain waits on its adds' latency, so a thread sums
 * {@link #CHAINS} chunks at once, a chain each (the same bits: each chunk's sum is its own chain):
 * a fine-tuned MiniLM's 22.6 million squares take 9–10 ms on two threads this way, 17–18 ms a
 * chunk at a time.
 */
final class MeanGradient implements Optimizer.Gradient {

    /**
     * Chunks whose squares a thread sums at once, one chain each: enough independent adds to cover
     * an add's latency (their values, 2 MiB a thread, come from L2 and L3). Fixed: the loop below
     * is written out for four chains.
     */
    static final int CHAINS = 4;

    /** A thread's chunks of the gradient while the norm is taken. */
    private static final ThreadLocal<double[][]> CHUNKS =
        ThreadLocal.withInitial(() -> new double[CHAINS][GradientClipping.NORM_CHUNK]);

    private final GradientSums sums;
    private final double weight;
    private double coefficient = 1;

    /** The mean of {@code sums} (whole sums, not a slice) over Σ weight {@code weight}. */
    MeanGradient(GradientSums sums, double weight) {
        this.sums = sums;
        this.weight = weight;
    }

    /** The gradient's length, the network's parameter count. */
    int length() {
        return sums.layout().parameterCount();
    }

    /**
     * Scales every later read by {@code maxNorm / (norm + 1e-6)} when that is below 1.
     *
     * @return the mean gradient's L2 norm before clipping
     */
    double clipByGlobalNorm(double maxNorm) {
        int n = length();
        int chunk = GradientClipping.NORM_CHUNK;
        double[] partial = new double[(n + chunk - 1) / chunk];
        IntStream.range(0, (partial.length + CHAINS - 1) / CHAINS).parallel().forEach(group -> {
            double[][] chunks = CHUNKS.get();
            int first = group * CHAINS, last = Math.min(partial.length, first + CHAINS);
            for (int c = first; c < last; c++) {
                read(c * chunk, Math.min(n, (c + 1) * chunk), chunks[c - first]);
            }
            if (last - first == CHAINS && (long) last * chunk <= n) {
                double[] a = chunks[0], b = chunks[1], c = chunks[2], d = chunks[3];
                double sa = 0, sb = 0, sc = 0, sd = 0;
                for (int k = 0; k < chunk; k++) {
                    sa += a[k] * a[k];
                    sb += b[k] * b[k];
                    sc += c[k] * c[k];
                    sd += d[k] * d[k];
                }
                partial[first] = sa;
                partial[first + 1] = sb;
                partial[first + 2] = sc;
                partial[first + 3] = sd;
            } else {
                for (int c = first; c < last; c++) {
                    double[] values = chunks[c - first];
                    double sq = 0;
                    for (int k = 0, len = Math.min(n, (c + 1) * chunk) - c * chunk; k < len; k++) {
                        sq += values[k] * values[k];
                    }
                    partial[c] = sq;
                }
            }
        });
        double sq = 0;
        for (double p : partial) {
            sq += p;
        }
        double total = Math.sqrt(sq);
        coefficient = GradientClipping.coefficient(total, maxNorm);
        return total;
    }

    @Override
    public void read(int from, int to, double[] into) {
        sums.toFlat(from, to, into);
        for (int k = 0; k < to - from; k++) {
            double g = into[k] / weight;
            into[k] = coefficient < 1 ? g * coefficient : g;
        }
    }
}

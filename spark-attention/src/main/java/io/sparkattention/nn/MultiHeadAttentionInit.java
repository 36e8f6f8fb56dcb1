package io.sparkattention.nn;

import io.sparkattention.kernel.Heads;
import java.util.SplittableRandom;

/**
 * The initial weights PyTorch's {@code nn.MultiheadAttention} gets ({@code _reset_parameters}),
 * drawn deterministically from a seed:
 * <ul>
 *   <li>input projections: {@code xavier_uniform_}, i.e. uniform in ±√(6/(fan_in + fan_out)) —
 *       on {@code in_proj_weight} as one 3E×E matrix when kdim = vdim = E (so all three share the
 *       bound √(6/4E)), or on {@code q_proj_weight} (E×E), {@code k_proj_weight} (E×kdim) and
 *       {@code v_proj_weight} (E×vdim) separately otherwise;</li>
 *   <li>output projection weight: {@code nn.Linear}'s default {@code kaiming_uniform_(a=√5)}, i.e.
 *       uniform in ±1/√E (MultiheadAttention does not reset it);</li>
 *   <li>{@code in_proj_bias} and {@code out_proj.bias}: zero (when {@code bias}).</li>
 * </ul>
 * The distributions are PyTorch's; the random numbers are not (its generator is not reproduced),
 * so equal seeds give equal weights here, not equal to {@code torch.manual_seed}'s.
 */
public final class MultiHeadAttentionInit {

    private MultiHeadAttentionInit() {
    }

    /**
     * PyTorch's initial weights for {@code nn.MultiheadAttention(embedDim, numHeads, bias=bias,
     * kdim=kdim, vdim=vdim)}.
     *
     * @param embedDim E, the query width and the output width
     * @param numHeads heads; must divide E
     * @param kdim     the key width
     * @param vdim     the value width
     * @param bias     whether the projections have biases (PyTorch's default: true)
     * @param seed     the seed; equal arguments give bit-identical weights
     * @return the weights
     * @throws IllegalArgumentException when a dimension is below 1 or {@code numHeads} does not divide E
     */
    public static MultiHeadAttentionWeights pytorchDefault(int embedDim, int numHeads, int kdim, int vdim,
                                                           boolean bias, long seed) {
        if (embedDim < 1 || kdim < 1 || vdim < 1) {
            throw new IllegalArgumentException("embed_dim, kdim and vdim must be >= 1, got " + embedDim + ", " + kdim
                + ", " + vdim);
        }
        Heads.headDim(embedDim, numHeads, "numHeads", "embed_dim");
        SplittableRandom random = new SplittableRandom(seed);
        boolean packed = kdim == embedDim && vdim == embedDim;
        // xavier_uniform_: fan_in is the input width, fan_out the output rows of the matrix reset.
        double qBound = packed ? xavier(embedDim, 3 * embedDim) : xavier(embedDim, embedDim);
        double kBound = packed ? qBound : xavier(kdim, embedDim);
        double vBound = packed ? qBound : xavier(vdim, embedDim);
        float[] q = uniform(random, (long) embedDim * embedDim, qBound);
        float[] k = uniform(random, (long) embedDim * kdim, kBound);
        float[] v = uniform(random, (long) embedDim * vdim, vBound);
        // kaiming_uniform_(a=√5): gain √(2/(1+a²)) = √(1/3), bound gain·√(3/fan_in) = 1/√fan_in.
        float[] out = uniform(random, (long) embedDim * embedDim, 1.0 / Math.sqrt(embedDim));
        float[] qb = bias ? new float[embedDim] : null;
        float[] kb = bias ? new float[embedDim] : null;
        float[] vb = bias ? new float[embedDim] : null;
        float[] ob = bias ? new float[embedDim] : null;
        return MultiHeadAttentionWeights.of(embedDim, numHeads, kdim, vdim, q, k, v, qb, kb, vb, out, ob);
    }

    private static double xavier(int fanIn, int fanOut) {
        return Math.sqrt(6.0 / (fanIn + fanOut));
    }

    private static float[] uniform(SplittableRandom random, long n, double bound) {
        if (n > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("a projection of " + n + " values does not fit one array");
        }
        float[] w = new float[(int) n];
        for (int i = 0; i < w.length; i++) {
            w[i] = (float) ((2 * random.nextDouble() - 1) * bound);
        }
        return w;
    }
}

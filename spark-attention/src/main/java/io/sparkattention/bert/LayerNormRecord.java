package io.sparkattention.bert;

/**
 * What a LayerNorm's training forward keeps for its backward ({@link EncoderMath#layerNormKeeping},
 * {@link EncoderMath#layerNormGradient}): x̂ (M×E) and 1/σ (M), and the backward's float64 sums of
 * dγ and dβ (2E). Arrays grown to the most rows seen and reused; one per norm and thread (the
 * encoder's and the decoder's training records). Not thread-safe.
 */
public final class LayerNormRecord {

    private float[] xhat = new float[0];
    private float[] rstd = new float[0];
    private double[] sums = new double[0];

    /** Room for M rows of width E. */
    public void ensure(int M, int E) {
        if (rstd.length < M || xhat.length < M * E) {
            xhat = new float[M * E];
            rstd = new float[M];
        }
        if (sums.length < 2 * E) {
            sums = new double[2 * E];
        }
    }

    /** M×E: the normalised rows of the last forward. */
    public float[] xhat() {
        return xhat;
    }

    /** M: each row's 1/σ. */
    public float[] rstd() {
        return rstd;
    }

    /** 2E: the backward's scratch for dγ and dβ in float64. */
    public double[] sums() {
        return sums;
    }
}

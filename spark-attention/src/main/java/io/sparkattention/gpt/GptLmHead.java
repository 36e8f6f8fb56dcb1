package io.sparkattention.gpt;

import io.sparkattention.kernel.WeightGradient;

/**
 * The tied LM head and the language-modelling loss over stacked blocks, forward and backward, a
 * chunk of {@value #HEAD_ROWS} predicting rows at a time so that the logits never take more than
 * a {@value #HEAD_ROWS}×V float32 buffer whatever the blocks' length (25 MiB at GPT-2's 50,257
 * ids; no float64 copy).
 * <pre>
 *   per predicting row t of block r (every row but the block's last), target y = ids_r[t + 1]:
 *     z = h_t·wteᵀ                                   V logits (the decoder's head product)
 *     nll_r += lse(z) − z_y                          lse in float64 ({@link DecoderMath#logSumExp})
 *   backward (weights w_r):
 *     dz = w_r·(softmax(z) − onehot(y))              in place of z
 *     dwte += dzᵀ·h  (the head's share of the tied table),   dh_t = dz·wte
 * </pre>
 * Each row's nll is the decoder's ({@link GptScorer}: same head product, same log-sum-exp), so
 * the evaluation loss of a block is minus the sum of {@link GptDecoder#tokenLogProbs} (bit for bit
 * where both take the same attention path: {@link GptTrainingWeights#trainingKernel}). Not
 * thread-safe: one per evaluator (it owns the chunk buffers; the weights are shared).
 */
final class GptLmHead {

    /** Predicting rows per head product: bounds the logits buffer at HEAD_ROWS×V. */
    static final int HEAD_ROWS = 128;

    private static final DecoderMath MATH = DecoderMath.INSTANCE;

    private final int width;
    private final int vocab;
    /** The shared weights: the head's products. */
    private final GptTrainingWeights prepared;
    private final float[] rows;
    private final float[] logits;
    private final float[] dRows;
    private final int[] rowOf;
    private final int[] blockOf;
    private final int[] target;

    GptLmHead(GptTrainingWeights prepared) {
        this.width = prepared.config.hidden();
        this.vocab = prepared.config.vocabSize();
        this.prepared = prepared;
        this.rows = new float[HEAD_ROWS * width];
        this.dRows = new float[HEAD_ROWS * width];
        this.logits = new float[HEAD_ROWS * vocab];
        this.rowOf = new int[HEAD_ROWS];
        this.blockOf = new int[HEAD_ROWS];
        this.target = new int[HEAD_ROWS];
    }

    /**
     * The blocks' summed −log-likelihoods into {@code nll} (added, block by block in token order)
     * and, when {@code dh} is not null, the gradient of Σ weight_r·nll_r: dh (M×E, written; 0 on
     * each block's last row) and wte's head share added into {@code grad} at {@code wteOffset}.
     *
     * @param h      M×E, the states after ln_f
     * @param blocks the stacked blocks' ids (block r: rows [starts[r], starts[r+1]))
     */
    void run(float[] h, int[][] blocks, double[] weights, int[] starts, int count, double[] nll, float[] dh,
             float[] grad, int wteOffset, WeightGradient wg) {
        int E = width;
        if (dh != null) {
            java.util.Arrays.fill(dh, 0, starts[count] * E, 0f);
        }
        int k = 0;
        for (int r = 0; r < count; r++) {
            for (int t = starts[r]; t < starts[r + 1] - 1; t++) {
                System.arraycopy(h, t * E, rows, k * E, E);
                rowOf[k] = t;
                blockOf[k] = r;
                target[k] = blocks[r][t - starts[r] + 1];
                if (++k == HEAD_ROWS) {
                    chunk(k, weights, nll, dh, grad, wteOffset, wg);
                    k = 0;
                }
            }
        }
        chunk(k, weights, nll, dh, grad, wteOffset, wg);
    }

    private void chunk(int k, double[] weights, double[] nll, float[] dh, float[] grad, int wteOffset,
                       WeightGradient wg) {
        if (k == 0) {
            return;
        }
        int V = vocab, E = width;
        prepared.head.apply(rows, k, logits);
        for (int i = 0; i < k; i++) {
            double lse = MATH.logSumExp(logits, i * V, V);
            nll[blockOf[i]] += lse - logits[i * V + target[i]];
            if (dh != null) {
                MATH.softmaxGradient(logits, i * V, V, lse, target[i], weights[blockOf[i]]);
            }
        }
        if (dh == null) {
            return;
        }
        wg.accumulate(k, E, V, logits, rows, grad, wteOffset);
        prepared.headInput().apply(logits, k, dRows);
        for (int i = 0; i < k; i++) {
            System.arraycopy(dRows, i * E, dh, rowOf[i] * E, E);
        }
    }
}

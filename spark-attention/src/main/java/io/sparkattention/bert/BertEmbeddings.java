package io.sparkattention.bert;

/**
 * Hugging Face's {@code BertEmbeddings}: {@code x = LN(word[ids] + position[0..L) + tokenType[0])},
 * then (training) dropout on x. Forward for inference over stacked sequences, forward and backward
 * for training over one row.
 * <pre>
 *   forward:   s = word[ids] + position[0..L) + tokenType[0]        L×E
 *              x = dropout(LN(s))                                   keeps x̂ (L×E), rstd (L)
 *   backward:  dLN = dx∘M;  ds = LN'(dLN) (dγ, dβ added)
 *              word[ids[i]] += ds_i,  position[i] += ds_i,  tokenType[0] += ds_i   (scatter-add)
 * </pre>
 * Thread-safe: it holds only the weights; records and scratch come from the caller.
 */
final class BertEmbeddings {

    private static final EncoderMath MATH = EncoderMath.INSTANCE;

    private final int width;
    private final float eps;
    private final float[] word;
    private final float[] position;
    private final float[] type;
    private final float[] gamma;
    private final float[] beta;
    /** Offsets of word, position, token type, γ, β in a flat gradient; null when they do not train. */
    private final int[] gradientOffsets;

    /**
     * @param gradientOffsets the offsets of the five tensors (word, position, token type, LN
     *                        weight, LN bias) in the flat gradient, or null for inference only
     */
    BertEmbeddings(BertWeights w, int[] gradientOffsets) {
        BertConfig c = w.config();
        this.width = c.hidden();
        this.eps = c.layerNormEps();
        this.word = w.tensor(BertWeights.WORD_EMBEDDINGS);
        this.position = w.tensor(BertWeights.POSITION_EMBEDDINGS);
        this.type = w.tensor(BertWeights.TOKEN_TYPE_EMBEDDINGS);
        this.gamma = w.tensor(BertWeights.EMBEDDINGS_NORM_WEIGHT);
        this.beta = w.tensor(BertWeights.EMBEDDINGS_NORM_BIAS);
        this.gradientOffsets = gradientOffsets;
    }

    /** Offset of the word embedding in the flat gradient. */
    int wordOffset() {
        return gradientOffsets[0];
    }

    /**
     * Inference: sequence r's rows from {@code starts[r]} of x (M×E, M = starts[batch.length]),
     * embedded and normalised.
     */
    void forward(int[][] batch, int[] starts, float[] x) {
        for (int r = 0; r < batch.length; r++) {
            sum(batch[r], x, starts[r] * width);
        }
        MATH.layerNorm(x, null, starts[batch.length], width, gamma, beta, eps);
    }

    /** Rows from {@code offset} of x: {@code word[ids] + position[0..L) + tokenType[0]}. */
    private void sum(int[] ids, float[] x, int offset) {
        int E = width;
        for (int i = 0; i < ids.length; i++) {
            int w = ids[i] * E, p = i * E, o = offset + i * E;
            for (int j = 0; j < E; j++) {
                x[o + j] = word[w + j] + position[p + j] + type[j];
            }
        }
    }

    /**
     * Training forward of one row: x (L×E) written, x̂ and rstd kept in {@code rec}.
     *
     * @param mask the dropout mask of the output, or null
     */
    void forward(int[] ids, float[] x, TrainingRecord.Norm rec, DropoutMask mask) {
        int L = ids.length;
        sum(ids, x, 0);
        MATH.layerNorm(x, null, L, width, gamma, beta, eps, rec.xhat, rec.rstd);
        if (mask != null) {
            mask.apply(x, 0, L * width, 0);
        }
    }

    /**
     * Training backward of one row: the five tensors' gradients added into {@code grad}.
     *
     * @param dx   L×E, the gradient of the output; overwritten (scratch)
     * @param mask the forward's mask, or null
     */
    void backward(int[] ids, TrainingRecord.Norm rec, float[] dx, DropoutMask mask, float[] grad) {
        int L = ids.length, E = width;
        if (mask != null) {
            mask.apply(dx, 0, L * E, 0);
        }
        MATH.layerNormBackward(dx, rec.xhat, rec.rstd, L, E, gamma, dx, grad, gradientOffsets[3], gradientOffsets[4],
            rec.sums);
        int wordOff = gradientOffsets[0], positionOff = gradientOffsets[1], typeOff = gradientOffsets[2];
        for (int i = 0; i < L; i++) {
            int w = wordOff + ids[i] * E, p = positionOff + i * E, o = i * E;
            for (int j = 0; j < E; j++) {
                float g = dx[o + j];
                grad[w + j] += g;
                grad[p + j] += g;
                grad[typeOff + j] += g;
            }
        }
    }
}

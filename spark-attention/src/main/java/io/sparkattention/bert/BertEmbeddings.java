package io.sparkattention.bert;

/**
 * Hugging Face's {@code BertEmbeddings}: {@code x = LN(word[ids] + position[0..L) + tokenType[0])},
 * then (training) dropout on x. Forward for inference, forward and backward for training, each
 * over stacked rows (row r's tokens from {@code starts[r]}, positions from 0 in each row).
 * <pre>
 *   forward:   s = word[ids] + position[0..L) + tokenType[0]        L×E per row, M×E stacked
 *              x = dropout(LN(s))                                   keeps x̂ (M×E), rstd (M)
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
     * Training forward of stacked rows: x (M×E) written, x̂ and rstd kept in {@code rec}, each
     * row's dropout ({@link DropoutMask#EMBEDDINGS}) from its own mask.
     */
    void forward(RowStack rows, float[] x, LayerNormRecord rec) {
        for (int r = 0; r < rows.count(); r++) {
            sum(rows.ids(r), x, rows.start(r) * width);
        }
        MATH.layerNorm(x, null, rows.tokens(), width, gamma, beta, eps, rec.xhat(), rec.rstd());
        rows.apply(DropoutMask.EMBEDDINGS, x, width);
    }

    /**
     * Training backward of stacked rows: the five tensors' gradients added into {@code grad}, the
     * rows' scatter-adds in row order.
     *
     * @param dx M×E, the gradient of the output; overwritten (scratch)
     */
    void backward(RowStack rows, LayerNormRecord rec, float[] dx, float[] grad) {
        int E = width;
        rows.apply(DropoutMask.EMBEDDINGS, dx, E);
        MATH.layerNormBackward(dx, rec.xhat(), rec.rstd(), rows.tokens(), E, gamma, dx, grad, gradientOffsets[3],
            gradientOffsets[4], rec.sums());
        int wordOff = gradientOffsets[0], positionOff = gradientOffsets[1], typeOff = gradientOffsets[2];
        for (int r = 0; r < rows.count(); r++) {
            int[] ids = rows.ids(r);
            for (int i = 0, o = rows.start(r) * E; i < ids.length; i++, o += E) {
                int w = wordOff + ids[i] * E, p = positionOff + i * E;
                for (int j = 0; j < E; j++) {
                    float g = dx[o + j];
                    grad[w + j] += g;
                    grad[p + j] += g;
                    grad[typeOff + j] += g;
                }
            }
        }
    }
}

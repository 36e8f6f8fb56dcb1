package io.sparkattention.gpt;

import io.sparkattention.bert.EncoderMath;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.LinearKernel;
import io.sparkattention.kernel.LinearWeight;
import io.sparkattention.nn.KeyValueCache;

/**
 * A decoder's blocks with every weight prepared once for this JVM: the embeddings, the
 * {@link GptBlock}s, ln_f and the LM head (a {@link LinearWeight} over wte, V×E, which is exactly
 * {@code nn.Linear}'s layout, or over an untied lm_head.weight).
 * <pre>
 *   x = wte[ids] + wpe[p0 … p0 + n)          per sequence, n new rows from position p0
 *   x = block_N(… block_0(x))                whole rows, or new rows over KV caches
 *   h = LN(x; ln_f);  logits = h·wteᵀ         V per row, on the head's rows only
 * </pre>
 * Thread-safe: weights only; scratch comes from the caller.
 */
final class GptStack {

    private static final EncoderMath NORM = EncoderMath.get();

    final GptConfig config;
    private final float[] tokenEmbedding;
    private final float[] positionEmbedding;
    private final GptBlock[] blocks;
    private final float[] finalNormWeight;
    private final float[] finalNormBias;
    final LinearWeight head;

    /**
     * @param linear the projection kernel, or null for the JVM's ({@link LinearKernel#get()})
     */
    GptStack(GptWeights w, LinearKernel linear) {
        GptConfig c = w.config();
        LinearKernel k = linear != null ? linear : LinearKernel.get();
        this.config = c;
        this.tokenEmbedding = w.tensor(GptWeights.TOKEN_EMBEDDING);
        this.positionEmbedding = w.tensor(GptWeights.POSITION_EMBEDDING);
        FlashAttention kernel = GptBlock.causalKernel();
        this.blocks = new GptBlock[c.layers()];
        for (int n = 0; n < blocks.length; n++) {
            blocks[n] = new GptBlock(c, w.layer(n), kernel, k);
        }
        this.finalNormWeight = w.tensor(GptWeights.FINAL_NORM_WEIGHT);
        this.finalNormBias = w.tensor(GptWeights.FINAL_NORM_BIAS);
        this.head = LinearWeight.of(k, w.headWeight(), c.vocabSize(), c.hidden(), null);
    }

    /** Whether the projections compute each row independently of the others, bit for bit. */
    boolean rowsIndependent() {
        return head.rowsIndependent();
    }

    /** Rows {@code [row, row + n)} of x: {@code wte[ids[from + i]] + wpe[position0 + i]}. */
    void embed(int[] ids, int from, int n, int position0, float[] x, int row) {
        embed(tokenEmbedding, positionEmbedding, config.hidden(), ids, from, n, position0, x, row);
    }

    /** {@link #embed(int[], int, int, int, float[], int)} from the tables wte (V×E) and wpe (P×E). */
    static void embed(float[] tokenEmbedding, float[] positionEmbedding, int E, int[] ids, int from, int n,
                      int position0, float[] x, int row) {
        for (int i = 0; i < n; i++) {
            int w = ids[from + i] * E, p = (position0 + i) * E, o = (row + i) * E;
            for (int j = 0; j < E; j++) {
                x[o + j] = tokenEmbedding[w + j] + positionEmbedding[p + j];
            }
        }
    }

    /**
     * Whole sequences stacked in {@code s.x} (sequence r: rows {@code [starts[r], starts[r+1])},
     * embedded) through every block and ln_f. The heads' probabilities of block
     * {@code probsLayer} are written into {@code probs} for a single sequence (−1: none).
     */
    void forward(int[] starts, int count, GptScratch s, int probsLayer, float[] probs) {
        for (int n = 0; n < blocks.length; n++) {
            blocks[n].forward(s.x, starts, count, s, n == probsLayer ? probs : null);
        }
        NORM.layerNorm(s.x, null, starts[count], config.hidden(), finalNormWeight, finalNormBias,
            config.layerNormEps());
    }

    /**
     * New rows of several sequences stacked in {@code s.x} through every block over the
     * sequences' caches ({@code caches[layer][r]}, which take the rows' keys and values) and ln_f.
     */
    void cachedForward(int[] starts, int count, KeyValueCache[][] caches, GptScratch s) {
        for (int n = 0; n < blocks.length; n++) {
            blocks[n].cachedForward(s.x, starts, count, caches[n], s);
        }
        NORM.layerNorm(s.x, null, starts[count], config.hidden(), finalNormWeight, finalNormBias,
            config.layerNormEps());
    }
}

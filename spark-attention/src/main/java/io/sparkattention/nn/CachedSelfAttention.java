package io.sparkattention.nn;

import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.MatrixView;
import io.sparkattention.kernel.RowMask;

/**
 * Causal self-attention of new tokens over a cache of earlier ones
 * ({@link MultiHeadAttentionLayer#cachedForward}), for several sequences at once:
 * <pre>
 *   qkv = x·[Wq; Wk; Wv]ᵀ + [bq; bk; bv]              M × (E + 2·Ekv), one GEMM for every sequence's new rows
 *   cache_r ← [k | v] of sequence r's n_r new rows     appended after its S_r − n_r cached rows
 *   ctx_r = attention(q_r, cache_r's keys, values)     n_r queries over S_r keys, the causal diagonal bottom-right
 *   y = ctx·Woᵀ + bo                                   M × E
 * </pre>
 * With the diagonal aligned bottom-right ({@link io.sparkattention.kernel.CausalAlignment#BOTTOM_RIGHT}),
 * new query i of sequence r sees keys {@code j ≤ i + S_r − n_r}: itself and everything before it, as
 * in the full sequence's causal attention. The kernel reads the cache in place (strided views of its
 * key and value columns, views made once with the cache). Nothing is allocated but the
 * query's and output's views and the shape, three small objects per sequence and layer.
 */
final class CachedSelfAttention {

    private CachedSelfAttention() {
    }

    static void forward(MultiHeadAttentionWeights w, LayerProjections p, FlashAttention kernel, float[] x,
                        int[] starts, int count, KeyValueCache[] caches, SelfAttentionRecord rec, float[] y) {
        int M = starts[count];
        int E = w.embedDim(), H = w.numHeads(), d = w.headDim(), Ekv = w.numKvHeads() * d, F = E + 2 * Ekv;
        rec.ensure(M, E, F, H);
        p.qkv.apply(x, M, rec.qkv);
        for (int r = 0; r < count; r++) {
            int s = starts[r], n = starts[r + 1] - s;
            if (n == 0) {
                continue;
            }
            KeyValueCache c = caches[r];
            for (int i = 0; i < n; i++) {
                System.arraycopy(rec.qkv, (s + i) * F + E, c.rows, (c.length + i) * 2 * Ekv, 2 * Ekv);
            }
            c.length += n;
            kernel.forward(new AttentionShape(n, c.length, H, w.numKvHeads(), d, d),
                new MatrixView(rec.qkv, s * F, F), c.keys, c.values, RowMask.NONE,
                new MatrixView(rec.context, s * E, E), rec.lse, H * s, rec.workspace);
        }
        p.out.apply(rec.context, M, y);
    }
}

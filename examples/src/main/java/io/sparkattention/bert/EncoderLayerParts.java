package io.sparkattention.bert;

import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.LinearWeight;
import io.sparkattention.kernel.MatrixView;
import io.sparkattention.kernel.RowMask;
import io.sparkattention.kernel.Workspace;

import java.util.List;
import java.util.Objects;

/**
 * One encoder layer's inference forward over stacked sequences, cut into the parts a profile
 * names and each runnable alone on buffers held here, so that a benchmark can time them side by
 * side in one JVM ({@code bench --layer-split}). The parts run the arithmetic
 * {@link BertLayer#forward(float[], int[], int, EncoderScratch, float[])} runs (its weights
 * prepared as {@link LinearWeight}s on the JVM's kernel, the attention kernel's default spec and
 * {@link EncoderMath}), in its order; {@code EncoderLayerPartsTest} checks that the parts in
 * order give the layer's output bit for bit:
 * <pre>
 *   qkv_gemm             qkv = x·[Wq; Wk; Wv]ᵀ + b             M×3E
 *   attention            ctx = attention(q, k, v) per sequence  M×E
 *   attention_out_gemm   y = ctx·Woᵀ + bo                       M×E
 *   attention_layernorm  mid = LN(x + y)                        M×E
 *   intermediate_gemm    h = mid·Wiᵀ + bi                       M×F
 *   gelu                 a = gelu(h)                            M×F
 *   output_gemm          y = a·Wo2ᵀ + bo2                       M×E
 *   output_layernorm     out = LN(mid + y)                      M×E
 * </pre>
 * Each part reads its input from buffers the previous parts filled once at construction and
 * writes its own output buffer, so a part's repetitions compute the same values; the
 * in-place LayerNorms and GELU run on a copy of their kept input (an M×E or M×F copy, counted in
 * their time). Not thread-safe.
 *
 * <p>A lab class, shipped in the examples jar and not in the library: it sits in the encoder's
 * package because it calls the package's own layer ({@code BertLayer}) and element-wise math
 * ({@code EncoderMath}), which are not public, so the library keeps one forward per block and no
 * measuring handle.
 */
public final class EncoderLayerParts {

    /** The parts, in the order of the layer's forward. */
    public static final List<String> PARTS = List.of("qkv_gemm", "attention", "attention_out_gemm",
        "attention_layernorm", "intermediate_gemm", "gelu", "output_gemm", "output_layernorm");

    private static final EncoderMath MATH = EncoderMath.INSTANCE;

    private final BertConfig config;
    private final BertWeights.Layer w;
    private final int[] starts;
    private final int count;
    private final int M;
    private final LinearWeight qkv;
    private final LinearWeight attentionOut;
    private final LinearWeight intermediate;
    private final LinearWeight output;
    private final FlashAttention kernel;
    private final Workspace workspace = new Workspace();
    private final float[] x;
    private final float[] qkvOut;
    private final float[] context;
    private final float[] lse;
    private final float[] projected;
    private final float[] mid;
    private final float[] pre;
    private final float[] act;
    private final float[] normed;
    private final BertLayer layer;
    private final EncoderScratch scratch = new EncoderScratch();
    private final float[] layerIo;

    /**
     * @param x       M×E stacked input rows (copied), M the sum of lengths
     * @param lengths the sequences' lengths, in the order they are stacked
     * @throws IllegalArgumentException when a length is negative or x is not M×E
     */
    public EncoderLayerParts(BertConfig config, BertWeights.Layer weights, int[] lengths, float[] x) {
        this.config = Objects.requireNonNull(config, "config");
        this.w = Objects.requireNonNull(weights, "weights");
        int E = config.hidden(), F = config.intermediate(), H = config.heads();
        count = lengths.length;
        starts = new int[count + 1];
        for (int r = 0; r < count; r++) {
            if (lengths[r] < 0) {
                throw new IllegalArgumentException("length " + r + " is negative: " + lengths[r]);
            }
            starts[r + 1] = starts[r] + lengths[r];
        }
        M = starts[count];
        if (x.length != (long) M * E) {
            throw new IllegalArgumentException("x has " + x.length + " values, expected " + M + "×" + E);
        }
        this.x = x.clone();
        float[] fused = new float[3 * E * E];
        System.arraycopy(w.queryWeight(), 0, fused, 0, E * E);
        System.arraycopy(w.keyWeight(), 0, fused, E * E, E * E);
        System.arraycopy(w.valueWeight(), 0, fused, 2 * E * E, E * E);
        float[] fusedBias = new float[3 * E];
        System.arraycopy(w.queryBias(), 0, fusedBias, 0, E);
        System.arraycopy(w.keyBias(), 0, fusedBias, E, E);
        System.arraycopy(w.valueBias(), 0, fusedBias, 2 * E, E);
        qkv = LinearWeight.of(fused, 3 * E, E, fusedBias);
        attentionOut = LinearWeight.of(w.attentionOutputWeight(), E, E, w.attentionOutputBias());
        intermediate = LinearWeight.of(w.intermediateWeight(), F, E, w.intermediateBias());
        output = LinearWeight.of(w.outputWeight(), E, F, w.outputBias());
        kernel = new FlashAttention(AttentionSpec.defaults());
        qkvOut = new float[M * 3 * E];
        context = new float[M * E];
        lse = new float[H * M];
        projected = new float[M * E];
        mid = new float[M * E];
        pre = new float[M * F];
        act = new float[M * F];
        normed = new float[M * E];
        layer = new BertLayer(config, w, kernel, 0, null);
        layerIo = new float[M * E];
        for (int part = 0; part < PARTS.size(); part++) {
            run(part);
        }
    }

    /** Stacked rows M. */
    public int tokens() {
        return M;
    }

    /** The last part's output (M×E): the layer's output once every part has run in order. */
    float[] partsOutput() {
        return normed;
    }

    /** {@link #whole}'s output (M×E). */
    float[] layerOutput() {
        return layerIo;
    }

    /** Runs part {@code PARTS.get(part)} once. */
    public void run(int part) {
        int E = config.hidden(), F = config.intermediate();
        switch (part) {
            case 0 -> qkv.apply(x, M, qkvOut);
            case 1 -> attention();
            case 2 -> attentionOut.apply(context, M, projected);
            case 3 -> {
                System.arraycopy(x, 0, mid, 0, M * E);
                MATH.layerNorm(mid, projected, M, E, w.attentionNormWeight(), w.attentionNormBias(),
                    config.layerNormEps());
            }
            case 4 -> intermediate.apply(mid, M, pre);
            case 5 -> {
                System.arraycopy(pre, 0, act, 0, M * F);
                MATH.gelu(act, M * F);
            }
            case 6 -> output.apply(act, M, projected);
            case 7 -> {
                System.arraycopy(mid, 0, normed, 0, M * E);
                MATH.layerNorm(normed, projected, M, E, w.outputNormWeight(), w.outputNormBias(),
                    config.layerNormEps());
            }
            default -> throw new IllegalArgumentException("part " + part + " outside [0, " + PARTS.size() + ")");
        }
    }

    /** The whole layer as the encoder runs it ({@link BertLayer}), on a copy of x. */
    public void whole() {
        System.arraycopy(x, 0, layerIo, 0, layerIo.length);
        scratch.ensure(M, config.hidden(), config.intermediate());
        layer.forward(layerIo, starts, count, scratch, null);
    }

    private void attention() {
        int E = config.hidden(), H = config.heads(), d = config.headDim();
        for (int r = 0; r < count; r++) {
            int s = starts[r], L = starts[r + 1] - s;
            if (L == 0) {
                continue;
            }
            kernel.forward(new AttentionShape(L, L, H, H, d, d), new MatrixView(qkvOut, s * 3 * E, 3 * E),
                new MatrixView(qkvOut, s * 3 * E + E, 3 * E), new MatrixView(qkvOut, s * 3 * E + 2 * E, 3 * E),
                RowMask.NONE, new MatrixView(context, s * E, E), lse, H * s, workspace);
        }
    }
}

package io.sparkattention.kernel;

import java.util.List;
import java.util.Locale;

/**
 * Which attention computation a call takes: {@link #DIRECT} (per head the whole L×S score
 * matrix, its softmax and the product with V: {@link DirectAttention}) or {@link #TILED}
 * (FlashAttention's tiles with the online softmax, extra memory independent of L and S), or
 * {@link #AUTO}, which picks by length: direct when neither the queries nor the keys are longer
 * than {@value #DIRECT_MAX_LENGTH}, tiled beyond.
 *
 * <p>Both compute the same function with the same masks ({@link Masking}: one meaning), the same
 * log-sum-exp and the same fully-masked-row rule, within float32 rounding of each other. The rule
 * depends on L and S alone, never on the heads, so one head computed alone (the head strategy)
 * takes the path its row takes and gives the same bits.
 *
 * <p>The JVM's path ({@link #configured()}) comes from the system property {@value #PROPERTY}
 * ({@code auto}, {@code direct} or {@code tiled}; default {@code auto}), read once and logged
 * once ({@link ImplementationChoice}). Forcing {@code direct} still takes the tiled path for a
 * call whose score matrix {@code L·S} would not fit one Java array.
 */
public enum AttentionPath {
    /** Direct up to {@link #DIRECT_MAX_LENGTH} queries and keys, tiled beyond. */
    AUTO,
    /** The whole score matrix per head ({@link DirectAttention}). */
    DIRECT,
    /** FlashAttention's tiles ({@link FlashAttention}). */
    TILED,
    /**
     * Direct up to {@link #CAUSAL_DIRECT_MAX_LENGTH} queries and keys, tiled beyond: for causal
     * self-attention, whose direct path skips the masked half of each score row. The decoder's
     * training passes run it ({@code gpt.GptTrainingWeights}); the inference paths keep {@link #AUTO}.
     */
    AUTO_CAUSAL;

    /**
     * Longest query or key length that {@link #AUTO} computes directly. The direct path took
     * 0.17–0.27× the tiled kernel's time at L = 24–90 (MiniLM's 12 heads of 32) and 1.6× at
     * L = 256 (CPU time per call); its scores take L·S floats per call, 64 KiB here.
     */
    public static final int DIRECT_MAX_LENGTH = 128;

    /**
     * Longest query or key length that {@link #AUTO_CAUSAL} computes directly. Causal, 6 heads of
     * 64 at L = 256 (the byte GPT's training blocks), thread CPU time per call: the direct forward
     * 0.32× the tiled one, the backward 0.70×; its scores take L·S floats per head, 256 KiB here.
     */
    public static final int CAUSAL_DIRECT_MAX_LENGTH = 256;

    /** System property that forces the path: {@code auto}, {@code direct} or {@code tiled}. */
    public static final String PROPERTY = "sparkattention.attention";

    /** The JVM's path, chosen and logged once, on first use. */
    private static final class Configured {
        static final ImplementationChoice<AttentionPath> CHOICE = new ImplementationChoice<>("attention path",
            PROPERTY, List.of("auto", "direct", "tiled"), name -> valueOf(name.toUpperCase(Locale.ROOT)));
        static final AttentionPath INSTANCE = CHOICE.choose(p -> p == AUTO
            ? "direct up to " + DIRECT_MAX_LENGTH + " queries and keys, tiled beyond" : p.name().toLowerCase(Locale.ROOT));
    }

    /** The path the JVM runs ({@value #PROPERTY}, default {@code auto}). */
    public static AttentionPath configured() {
        return Configured.INSTANCE;
    }

    /**
     * A path by name ({@code auto}, {@code direct}, {@code tiled}; trimmed, any case).
     *
     * @throws IllegalArgumentException naming {@value #PROPERTY} and the accepted names
     */
    public static AttentionPath named(String name) {
        return Configured.CHOICE.create(name);
    }

    /** True when a call on {@code L} queries and {@code S} keys runs {@link DirectAttention}. */
    public boolean direct(int L, int S) {
        switch (this) {
            case DIRECT:
                return (long) L * S <= Integer.MAX_VALUE - 8;
            case AUTO:
                return L <= DIRECT_MAX_LENGTH && S <= DIRECT_MAX_LENGTH;
            case AUTO_CAUSAL:
                return L <= CAUSAL_DIRECT_MAX_LENGTH && S <= CAUSAL_DIRECT_MAX_LENGTH;
            default:
                return false;
        }
    }
}

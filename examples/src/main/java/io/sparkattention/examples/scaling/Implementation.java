package io.sparkattention.examples.scaling;

import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.RowMask;
import io.sparkattention.kernel.Workspace;

import java.util.Locale;

/** The two attention implementations the scaling measurement compares, on one head of n×d. */
public enum Implementation {

    /** {@link FlashAttention}: scratch of {@link FlashAttention#scratchFloats} floats, whatever n. */
    TILED("tiled (FlashAttention)") {
        @Override
        float[] run(int n, int d, float[] q, float[] k, float[] v) {
            float[] out = new float[n * d];
            // Fresh scratch on every call, so the measurement includes it.
            Kernel.INSTANCE.forward(AttentionShape.self(n, 1, d), q, k, v, RowMask.NONE, out, null, new Workspace());
            return out;
        }

        @Override
        long extraBytes(int n, int d) {
            return 4 * Kernel.INSTANCE.scratchFloats(d, d);
        }
    },

    /** {@link NaiveAttention}: the full n×n score matrix. */
    NAIVE("naive (full n×n scores)") {
        @Override
        float[] run(int n, int d, float[] q, float[] k, float[] v) {
            return NaiveAttention.forward(n, n, d, d, q, k, v, (float) (1 / Math.sqrt(d)));
        }

        @Override
        long extraBytes(int n, int d) {
            return 4L * n * n;
        }
    };

    private final String label;

    Implementation(String label) {
        this.label = label;
    }

    /**
     * The kernel, created on first use: the command that only launches measuring JVMs never
     * loads (and logs) a BLAS of its own.
     */
    private static final class Kernel {
        static final FlashAttention INSTANCE = new FlashAttention(AttentionSpec.defaults());
    }

    /**
     * One forward pass of self-attention.
     *
     * @return the n×d output
     */
    abstract float[] run(int n, int d, float[] q, float[] k, float[] v);

    /** Bytes the pass needs besides its n×d inputs and output (what makes the curves part). */
    abstract long extraBytes(int n, int d);

    /**
     * The legend text.
     *
     * @return e.g. "tiled (FlashAttention)"
     */
    public String label() {
        return label;
    }

    /**
     * The name used on the command line and in JSON.
     *
     * @return "tiled" or "naive"
     */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The implementation of an {@link #id()}.
     *
     * @param id "tiled" or "naive"
     * @return the implementation
     * @throws IllegalArgumentException for any other id
     */
    public static Implementation of(String id) {
        for (Implementation impl : values()) {
            if (impl.id().equals(id)) {
                return impl;
            }
        }
        throw new IllegalArgumentException("unknown implementation '" + id + "': expected tiled or naive");
    }
}

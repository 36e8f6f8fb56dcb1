package io.sparkattention.kernel;

/**
 * The arithmetic of a projection {@code y[m×n] += x[m×k]·W[n×k]ᵀ} (PyTorch's {@code nn.Linear}
 * without its bias) on a weight prepared for it once ({@link #pack}), all row-major.
 *
 * <p>Everything here is an inner loop: {@link LinearWeight} checks the arguments, so
 * implementations do not check them again. The implementation is chosen once per JVM
 * ({@link GemmChoice}); every one is tested against the same float64 reference.
 */
public abstract class LinearKernel {

    LinearKernel() {
    }

    /**
     * True when this implementation should be chosen over a native BLAS ({@link GemmChoice}'s
     * {@code auto}). The BLAS-backed implementation answers false.
     */
    boolean preferredOverNativeBlas() {
        return false;
    }

    /**
     * True when each row of y is computed by the same operations whatever m is and wherever the
     * row sits among the m: then stacking several sequences into one call gives each of them the
     * bits it gets alone. The BLAS-backed implementation answers false (a BLAS may choose its
     * blocking by m).
     */
    boolean rowsIndependent() {
        return false;
    }

    /**
     * The weight {@code W[n×k]} (row-major, PyTorch's {@code out×in}) in this implementation's
     * layout; {@code w} itself when it needs none. n, k ≥ 1.
     */
    abstract float[] pack(float[] w, int n, int k);

    /**
     * {@code y[m×n] += x[m×k]·Wᵀ}: x with leading dimension k, y with leading dimension n, both
     * from offset 0, W as {@link #pack} returned it. m, n, k ≥ 1.
     */
    abstract void multiplyAdd(int m, int n, int k, float[] x, float[] packed, float[] y);

    /** Human-readable name, reported by {@code bench} and logged at start-up. */
    public abstract String name();

    /** The implementation in use (see {@link GemmChoice}). */
    public static LinearKernel get() {
        return GemmChoice.INSTANCE;
    }

    /**
     * A new instance of a named implementation, for side-by-side benchmarks: {@code auto},
     * {@code vector} (Java Vector API micro-kernel) or {@code blas} ({@code sgemm} from {@link Blas}).
     *
     * @throws IllegalArgumentException for an unknown name
     * @throws IllegalStateException    for {@code vector} when {@code jdk.incubator.vector} is not visible
     */
    public static LinearKernel named(String name) {
        return GemmChoice.create(name);
    }
}

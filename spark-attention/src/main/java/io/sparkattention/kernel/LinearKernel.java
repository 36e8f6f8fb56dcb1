package io.sparkattention.kernel;

/**
 * The arithmetic of a projection {@code y[m×n] += x[m×k]·W[n×k]ᵀ} (PyTorch's {@code nn.Linear}
 * without its bias) on a weight prepared for it once ({@link #pack}), all row-major, and of its
 * backward products: the input gradient {@code dx = dy·W} is a projection on the prepared
 * transpose ({@link #packTransposed}), the weight gradient {@code dW += dyᵀ·x} is
 * {@link #addWeightGradient}.
 *
 * <p>Everything here is an inner loop: {@link LinearWeight} and {@link WeightGradient} check the arguments, so
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
     * bits it gets alone. The BLAS-backed implementation answers true on a native BLAS (see
     * {@link BlasLinearKernel}) and false on netlib's Java BLAS, which chooses its blocking by m.
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
     * {@link #pack} of {@code wᵀ} ({@code cols×rows}) for {@code w[rows×cols]} row-major: the
     * prepared form of {@code y = x·w}. rows, cols ≥ 1.
     */
    float[] packTransposed(float[] w, int rows, int cols) {
        return pack(transpose(w, rows, cols, new float[rows * cols]), cols, rows);
    }

    /**
     * {@code y[m×n] += x[m×k]·Wᵀ}: x from offset 0 with leading dimension k, y from {@code yOff}
     * with leading dimension n, W as {@link #pack} returned it. m, n, k ≥ 1.
     */
    abstract void multiplyAdd(int m, int n, int k, float[] x, float[] packed, float[] y, int yOff);

    /**
     * {@code dW[out×in] += dy[m×out]ᵀ·x[m×in]} (the weight gradient of {@code y = x·Wᵀ} summed over
     * m rows), row i of dy at {@code dyOff + i·ldDy}, x row-major from offset 0, dW row-major from
     * {@code dwOff}; m, in, out ≥ 1, ldDy ≥ out. {@code scratch} holds the buffers an
     * implementation reuses from call to call.
     */
    abstract void addWeightGradient(int m, int in, int out, float[] dy, int dyOff, int ldDy, float[] x, float[] dw,
                                    int dwOff, WeightGradient scratch);

    /**
     * {@code t[cols×rows] = a[rows×cols]ᵀ}, row-major, in square tiles of {@link #TRANSPOSE_TILE}
     * so that both the reads and the writes stay within a few cache lines per tile; within a tile
     * each row of t is written in one run (its reads strided). Writing a's rows instead, each write
     * strided by {@code rows}, measured 2.5× slower at rows = 2,048 (a stacked pass's tokens: the
     * tile's lines of t share one L1 set at a power-of-two stride) and the same elsewhere. Returns t.
     */
    static float[] transpose(float[] a, int rows, int cols, float[] t) {
        for (int j0 = 0; j0 < cols; j0 += TRANSPOSE_TILE) {
            int j1 = Math.min(cols, j0 + TRANSPOSE_TILE);
            for (int i0 = 0; i0 < rows; i0 += TRANSPOSE_TILE) {
                int i1 = Math.min(rows, i0 + TRANSPOSE_TILE);
                for (int j = j0; j < j1; j++) {
                    int dst = j * rows;
                    for (int i = i0; i < i1; i++) {
                        t[dst + i] = a[j + i * cols];
                    }
                }
            }
        }
        return t;
    }

    /** Side of the square tiles of {@link #transpose}: 16 floats, one 64-byte cache line per tile row. */
    static final int TRANSPOSE_TILE = 16;

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

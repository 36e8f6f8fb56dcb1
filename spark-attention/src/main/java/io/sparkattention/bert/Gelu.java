package io.sparkattention.bert;

/**
 * The exact (erf) GELU of BERT: {@code gelu(x) = ½·x·(1 + erf(x/√2))}, with an erf accurate to
 * 1e-9 absolute before the float32 rounding of its result (so within 1e-7 of the exact value,
 * whatever the argument).
 *
 * <p><b>erf.</b> On {@code |z| ≤ 4} a degree-20 polynomial in {@code u = (|z| − 2)/2 ∈ [−1, 1]},
 * the least-squares Chebyshev fit of erf on 20,000 Chebyshev nodes converted to powers of u
 * (its coefficients stay below 1, so evaluating it in double loses nothing): 6.2e-10 largest
 * error over [0, 4]. Beyond 4, {@code erf = ±1} ({@code 1 − erf(4) = 1.5e-8}). The sign is
 * restored from z. Evaluated in double: float32 steps would add a few ulp of 1 (6e-8 each),
 * beyond the 1e-7 bound.
 *
 * <p>The polynomial is evaluated by Estrin's scheme ({@link #polynomial}): pairs
 * {@code C[2k] + C[2k+1]·u}, then pairs of those with u², u⁴, u⁸, u¹⁶: 20 FMAs and 4 products
 * five deep, where Horner's rule chains 20 FMAs one after another: in vector lanes that chain's
 * latency, not the FMA rate, bounds the speed, and the shallow tree lets neighbouring vectors
 * overlap. The vector code ({@code VectorEncoderMath}) runs the same operations in the same
 * order, so both give the same bits.
 */
public final class Gelu {

    /** Above this |z|, erf(z) is ±1 to within 1.6e-8. */
    static final double ERF_SATURATION = 4.0;
    /** 1/√2. */
    static final double FRAC_1_SQRT_2 = 0.70710678118654752440;
    /** erf(2 + 2u) ≈ Σ C[i]·uⁱ for u ∈ [−1, 1]; C[0] first. */
    static final double[] C = {
        0.9953222651873861, 0.04133395849043811, -0.1653359235281251, 0.3857846505381084,
        -0.5511179846927711, 0.41883018527159155, 0.02936777932208401, -0.43228269759072946,
        0.4075047015973936, -0.026902485050322417, -0.27003945224866566, 0.21690557786384893,
        0.02408255616170216, -0.14308462364233457, 0.05992290205060251, 0.04649662625895859,
        -0.04051731441984872, -0.007436841196758885, 0.012464313388336411, 0.0003556409146403881,
        -0.0016538506932556568,
    };

    private Gelu() {
    }

    /** erf(z), within 1e-9 of the exact value; NaN for NaN. */
    public static double erf(double z) {
        double a = Math.abs(z);
        if (!(a < ERF_SATURATION)) {
            return Double.isNaN(z) ? z : Math.copySign(1.0, z);
        }
        return Math.copySign(polynomial(0.5 * a - 1.0), z);
    }

    /** Σ C[i]·uⁱ by Estrin's scheme, in the order the vector lanes use. */
    static double polynomial(double u) {
        double u2 = u * u, u4 = u2 * u2, u8 = u4 * u4, u16 = u8 * u8;
        double r0 = Math.fma(Math.fma(u, C[3], C[2]), u2, Math.fma(u, C[1], C[0]));
        double r1 = Math.fma(Math.fma(u, C[7], C[6]), u2, Math.fma(u, C[5], C[4]));
        double r2 = Math.fma(Math.fma(u, C[11], C[10]), u2, Math.fma(u, C[9], C[8]));
        double r3 = Math.fma(Math.fma(u, C[15], C[14]), u2, Math.fma(u, C[13], C[12]));
        double r4 = Math.fma(Math.fma(u, C[19], C[18]), u2, Math.fma(u, C[17], C[16]));
        double s0 = Math.fma(r1, u4, r0), s1 = Math.fma(r3, u4, r2), s2 = Math.fma(u4, C[20], r4);
        return Math.fma(s2, u16, Math.fma(s1, u8, s0));
    }

    /** gelu(x) = ½·x·(1 + erf(x/√2)), computed in double, rounded once. */
    public static float gelu(float x) {
        double xd = x;
        return (float) (0.5 * xd * (1.0 + erf(xd * FRAC_1_SQRT_2)));
    }

    /** 1/√(2π). */
    static final double FRAC_1_SQRT_2PI = 0.39894228040143267794;

    /** gelu'(x) = Φ(x) + x·φ(x) = ½·(1 + erf(x/√2)) + x·exp(−x²/2)/√(2π), in double. */
    public static double derivative(double x) {
        return 0.5 * (1.0 + erf(x * FRAC_1_SQRT_2)) + x * Math.exp(-0.5 * x * x) * FRAC_1_SQRT_2PI;
    }

    /**
     * The backward pass: {@code d[i] = dy[i]·gelu'(pre[i])} for i &lt; n, in double, rounded once.
     *
     * @param pre the forward's inputs (pre-activations)
     * @param dy  the gradient of the outputs
     * @param d   written (may be dy itself)
     */
    static void backward(float[] pre, float[] dy, float[] d, int n) {
        backward(pre, dy, d, 0, n);
    }

    /** {@link #backward(float[], float[], float[], int)} for i in {@code [from, to)}. */
    static void backward(float[] pre, float[] dy, float[] d, int from, int to) {
        for (int i = from; i < to; i++) {
            d[i] = (float) (dy[i] * derivative(pre[i]));
        }
    }

    /** {@code y[i] = gelu(y[i])} for i in {@code [from, to)}. */
    public static void apply(float[] y, int from, int to) {
        for (int i = from; i < to; i++) {
            y[i] = gelu(y[i]);
        }
    }
}

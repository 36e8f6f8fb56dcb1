package io.sparkattention.kernel;

import java.util.List;

/**
 * The element-wise part of an Adam/AdamW step over float32 parameters and moments, each value's
 * update computed in float64 and its moments and parameter rounded to float32 once (as
 * {@code torch.optim} keeps float32 state for float32 parameters):
 * <pre>
 *   m ← (float) (β₁·m + (1 − β₁)·g)        v ← (float) (β₂·v + ((1 − β₂)·g)·g)
 *   θ ← (float) (θ·decay − (stepSize·m) / (√v / correction2 + ε))
 * </pre>
 * with {@code decay} 1 for a value that is not decayed (θ·1 is θ, bit for bit). The optimiser
 * ({@code nn.Adam}) owns the schedule, the step count and the decay groups; this is its inner loop.
 *
 * <p>With the Vector API visible it is {@link VectorAdamUpdate}'s loop (C2 vectorises none of the
 * scalar form's float↔double conversions, and the scalar square root and division bound it: 54 ms
 * against 15 ms for a fine-tuned MiniLM's 22.6M values on two Zen 5 threads); otherwise the plain
 * loop. Every operation is IEEE-exact in both (products, sums, division and square root rounded
 * once each, in the same order), so both give the same bits. The choice is made once per JVM
 * through {@link ImplementationChoice} ({@value #PROPERTY}: {@code auto}, {@code vector} or
 * {@code scalar}) and logged once.
 */
public final class AdamUpdate {

    /** System property that forces the loop: {@code auto}, {@code vector} or {@code scalar}. */
    static final String PROPERTY = "sparkattention.adam";

    private static final Loop SCALAR = AdamUpdate::scalar;

    private static final ImplementationChoice<Loop> CHOICE = new ImplementationChoice<>("Adam update", PROPERTY,
        List.of("auto", "vector", "scalar"), AdamUpdate::make);

    private static final Loop LOOP = CHOICE.choose(loop -> loop == SCALAR ? "scalar loop" : "Vector API loop");

    /**
     * Parameter vectors shorter than this take the plain loop whatever the choice. Until C2 compiles
     * the vector loop, each of its iterations runs the Vector API's Java fallback (tens of
     * microseconds), and a short vector updated once a step makes it hot only after dozens of steps:
     * the 17K-value attention classifier's step took 60–90 ms longer on Zen 5. A fine-tuned MiniLM's
     * 22.6M values compile it within the first step. The bits are the same either way.
     */
    public static final int VECTOR_MIN_VALUES = 1 << 20;

    private AdamUpdate() {
    }

    /**
     * Updates {@code theta}, {@code m} and {@code v} over {@code [from, to)} from the gradient
     * {@code g}, whose value for position i is {@code g[i − base]}. The caller checks the ranges
     * (the optimiser's entry point does; this is its inner loop).
     *
     * @param h the step's coefficients
     */
    public static void apply(float[] theta, float[] m, float[] v, double[] g, int base, int from, int to,
                             Coefficients h) {
        (theta.length < VECTOR_MIN_VALUES ? SCALAR : LOOP).apply(theta, m, v, g, base, from, to, h);
    }

    /**
     * One step's constants.
     *
     * @param beta1       β₁
     * @param beta2       β₂
     * @param eps         ε
     * @param decay       the decayed values' factor 1 − lr·λ (1 for values not decayed)
     * @param stepSize    lr / (1 − β₁ᵗ)
     * @param correction2 √(1 − β₂ᵗ)
     */
    public record Coefficients(double beta1, double beta2, double eps, double decay, double stepSize,
                               double correction2) {

        /** These coefficients with {@code decay} 1 (the values that are not decayed). */
        public Coefficients undecayed() {
            return decay == 1 ? this : new Coefficients(beta1, beta2, eps, 1, stepSize, correction2);
        }
    }

    /** The plain loop: the fallback, and the vector loop's tail. */
    static void scalar(float[] theta, float[] m, float[] v, double[] g, int base, int from, int to, Coefficients h) {
        double beta1 = h.beta1(), beta2 = h.beta2(), eps = h.eps(), decay = h.decay();
        double stepSize = h.stepSize(), correction2 = h.correction2();
        for (int i = from; i < to; i++) {
            double gi = g[i - base];
            float mi = (float) (beta1 * m[i] + (1 - beta1) * gi);
            float vi = (float) (beta2 * v[i] + (1 - beta2) * gi * gi);
            m[i] = mi;
            v[i] = vi;
            theta[i] = (float) (theta[i] * decay - stepSize * mi / (Math.sqrt(vi) / correction2 + eps));
        }
    }

    /** The loop over a range already checked. */
    interface Loop {
        void apply(float[] theta, float[] m, float[] v, double[] g, int base, int from, int to, Coefficients h);
    }

    /** A new loop by name ({@code auto}, {@code vector}, {@code scalar}). */
    static Loop create(String requested) {
        return CHOICE.create(requested);
    }

    private static Loop make(String name) {
        switch (name) {
            case "vector":
                return ImplementationChoice.requireVector(vectorLoop(), "Adam update");
            case "scalar":
                return SCALAR;
            default:
                Loop vector = vectorLoop();
                return vector != null ? vector : SCALAR;
        }
    }

    /** The Vector API loop, or null when {@code jdk.incubator.vector} is not visible. */
    private static Loop vectorLoop() {
        // By name (and never named below), so that this class links without jdk.incubator.vector.
        return ImplementationChoice.vectorInstance("io.sparkattention.kernel.VectorAdamUpdate", Loop.class);
    }
}

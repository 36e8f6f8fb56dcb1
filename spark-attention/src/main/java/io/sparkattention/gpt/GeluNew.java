package io.sparkattention.gpt;

/**
 * GPT-2's GELU, Hugging Face's {@code gelu_new} (the tanh approximation of
 * {@link io.sparkattention.bert.Gelu}'s exact erf form):
 * {@code gelu_new(u) = ½·u·(1 + tanh(√(2/π)·(u + 0.044715·u³)))}, evaluated in double and rounded
 * once to float32 (so within half a float32 ulp of the exact value, plus tanh's 1-ulp error in
 * double).
 */
public final class GeluNew {

    /** √(2/π). */
    static final double SQRT_2_OVER_PI = 0.79788456080286535588;
    /** The cubic term's coefficient. */
    static final double CUBIC = 0.044715;

    private GeluNew() {
    }

    /** gelu_new(u) in double, rounded once. */
    public static float geluNew(float u) {
        double x = u;
        return (float) (0.5 * x * (1.0 + Math.tanh(SQRT_2_OVER_PI * (x + CUBIC * x * x * x))));
    }

    /** {@code y[i] = gelu_new(y[i])} for i in {@code [from, to)}. */
    public static void apply(float[] y, int from, int to) {
        for (int i = from; i < to; i++) {
            y[i] = geluNew(y[i]);
        }
    }
}

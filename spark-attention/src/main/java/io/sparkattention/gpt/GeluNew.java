package io.sparkattention.gpt;

/**
 * GPT-2's GELU, Hugging Face's {@code gelu_new} (the tanh approximation of
 * {@link io.sparkattention.bert.Gelu}'s exact erf form):
 * {@code gelu_new(u) = ½·u·(1 + tanh(√(2/π)·(u + 0.044715·u³)))}, evaluated in double and rounded
 * once to float32 (so within half a float32 ulp of the exact value, plus tanh's 1-ulp error in
 * double). Its derivative, for the backward pass, with {@code t = tanh(z)},
 * {@code z = √(2/π)·(u + 0.044715·u³)}:
 * {@code gelu_new'(u) = ½·(1 + t) + ½·u·(1 − t²)·√(2/π)·(1 + 3·0.044715·u²)}, in double.
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

    /** gelu_new'(u) in double (the class comment's formula). */
    public static double derivative(float u) {
        double x = u;
        double t = Math.tanh(SQRT_2_OVER_PI * (x + CUBIC * x * x * x));
        return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * SQRT_2_OVER_PI * (1.0 + 3.0 * CUBIC * x * x);
    }

    /**
     * The backward pass: {@code d[i] = dy[i]·gelu_new'(pre[i])} for {@code i < n}, in double and
     * rounded once (d may be dy).
     */
    public static void backward(float[] pre, float[] dy, float[] d, int n) {
        backward(pre, dy, d, 0, n);
    }

    /** {@link #backward(float[], float[], float[], int)} for i in {@code [from, to)}. */
    public static void backward(float[] pre, float[] dy, float[] d, int from, int to) {
        for (int i = from; i < to; i++) {
            d[i] = (float) (dy[i] * derivative(pre[i]));
        }
    }
}

package io.sparkattention.nn;

/** Plain gradient descent: {@code θ ← θ − lr·g}. */
final class GradientDescent extends Optimizer {

    private static final long serialVersionUID = 1L;

    private final double lr;
    private long t;

    GradientDescent(double lr) {
        this.lr = lr;
    }

    @Override
    public long iterations() {
        return t;
    }

    @Override
    void update(float[] theta, Gradient grad, double lrFactor) {
        t++;
        double rate = lr * lrFactor;
        for (int from = 0; from < theta.length; from += CHUNK) {
            int to = Math.min(theta.length, from + CHUNK);
            double[] g = readChunk(grad, from, to);
            for (int i = from; i < to; i++) {
                theta[i] = (float) (theta[i] - rate * g[i - from]);
            }
        }
    }
}

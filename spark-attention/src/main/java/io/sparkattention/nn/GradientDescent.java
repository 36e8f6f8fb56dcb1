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
    void update(float[] theta, double[] grad, double lrFactor) {
        t++;
        double rate = lr * lrFactor;
        for (int i = 0; i < theta.length; i++) {
            theta[i] = (float) (theta[i] - rate * grad[i]);
        }
    }
}

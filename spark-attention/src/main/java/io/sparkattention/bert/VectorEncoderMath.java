package io.sparkattention.bert;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link EncoderMath} on the Java Vector API.
 *
 * <p><b>GELU</b> in double lanes: {@link Gelu}'s erf polynomial (degree 20 in
 * {@code u = |z|/2 − 1}, saturated to ±1 beyond |z| = 4) evaluated by Horner's rule on
 * {@code DoubleVector}s, floats widened and narrowed a vector at a time; the same arithmetic as
 * {@link Gelu#gelu} up to the order of the final products (so within the same 1e-7). Its backward,
 * {@code dy·(Φ(x) + x·φ(x))}, in the same lanes, φ through the Vector API's exp.
 *
 * <p><b>LayerNorm</b> by {@link LayerNorm}'s accumulation rule: the residual added in float
 * lanes, then the sum, the sum of squared deviations and {@code (x − mean)·(1/σ)·γ + β} in double
 * lanes (floats widened a half-width vector at a time), rounded once. Sums are lane-wise, then
 * reduced; tails shorter than a vector run the same arithmetic one element at a time. Its
 * backward likewise: a row's two sums lane-wise in double, dγ and dβ summed per column over the
 * rows in double (as {@link LayerNorm#backward}, so the same bits), dx in double lanes.
 */
final class VectorEncoderMath extends EncoderMath {

    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    /** Floats with as many lanes as {@link #D}: a half-width vector. */
    private static final VectorSpecies<Float> F_HALF = VectorSpecies.of(float.class,
        VectorShape.forBitSize(D.vectorBitSize() / 2));
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final int DL = D.length();
    private static final int FL = F.length();

    /**
     * Vectors of GELU evaluated side by side, erf's Horner chain (20 dependent FMAs) for each
     * written out in the loop body: C2 does not inline a call as large as {@link #erf} here, and a
     * vector passed to a call that is not inlined is boxed on the heap. Interleaved in one JVM, two
     * chains ran as fast as one or slightly faster, four slower.
     * Each lane's arithmetic is {@link #erf}'s and the one-vector loop's, so the bits do not change.
     */
    static final int GELU_CHAINS = 2;

    @Override
    public void gelu(float[] y, int n) {
        int i = 0;
        double[] c = Gelu.C;
        for (int bound = n - n % (GELU_CHAINS * DL); i < bound; i += GELU_CHAINS * DL) {
            DoubleVector x0 = widen(y, i + 0 * DL);
            DoubleVector a0 = x0.mul(Gelu.FRAC_1_SQRT_2).abs();
            DoubleVector u0 = a0.mul(0.5).sub(1.0);
            DoubleVector x1 = widen(y, i + 1 * DL);
            DoubleVector a1 = x1.mul(Gelu.FRAC_1_SQRT_2).abs();
            DoubleVector u1 = a1.mul(0.5).sub(1.0);
            DoubleVector p0 = DoubleVector.broadcast(D, c[20]), p1 = p0, ck;
            ck = DoubleVector.broadcast(D, c[19]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[18]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[17]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[16]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[15]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[14]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[13]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[12]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[11]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[10]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[9]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[8]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[7]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[6]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[5]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[4]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[3]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[2]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[1]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[0]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            p0 = p0.blend(1.0, a0.compare(VectorOperators.GE, Gelu.ERF_SATURATION));
            p0 = p0.blend(p0.neg(), x0.compare(VectorOperators.LT, 0.0));
            ((FloatVector) x0.mul(0.5).mul(p0.add(1.0)).convertShape(VectorOperators.D2F, F_HALF, 0))
                .intoArray(y, i + 0 * DL);
            p1 = p1.blend(1.0, a1.compare(VectorOperators.GE, Gelu.ERF_SATURATION));
            p1 = p1.blend(p1.neg(), x1.compare(VectorOperators.LT, 0.0));
            ((FloatVector) x1.mul(0.5).mul(p1.add(1.0)).convertShape(VectorOperators.D2F, F_HALF, 0))
                .intoArray(y, i + 1 * DL);
        }
        for (int bound = D.loopBound(n); i < bound; i += DL) {
            DoubleVector x = widen(y, i);
            DoubleVector g = x.mul(0.5).mul(erf(x).add(1.0));
            ((FloatVector) g.convertShape(VectorOperators.D2F, F_HALF, 0)).intoArray(y, i);
        }
        Gelu.apply(y, i, n);
    }

    /** GELU's backward, its erf written out in the loop body as {@link #gelu}'s, for the same reasons. */
    @Override
    void geluBackward(float[] pre, float[] dy, float[] d, int n) {
        int i = 0;
        double[] c = Gelu.C;
        for (int bound = n - n % (GELU_CHAINS * DL); i < bound; i += GELU_CHAINS * DL) {
            DoubleVector x0 = widen(pre, i + 0 * DL);
            DoubleVector a0 = x0.mul(Gelu.FRAC_1_SQRT_2).abs();
            DoubleVector u0 = a0.mul(0.5).sub(1.0);
            DoubleVector x1 = widen(pre, i + 1 * DL);
            DoubleVector a1 = x1.mul(Gelu.FRAC_1_SQRT_2).abs();
            DoubleVector u1 = a1.mul(0.5).sub(1.0);
            DoubleVector p0 = DoubleVector.broadcast(D, c[20]), p1 = p0, ck;
            ck = DoubleVector.broadcast(D, c[19]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[18]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[17]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[16]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[15]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[14]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[13]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[12]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[11]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[10]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[9]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[8]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[7]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[6]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[5]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[4]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[3]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[2]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[1]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            ck = DoubleVector.broadcast(D, c[0]);
            p0 = p0.fma(u0, ck); p1 = p1.fma(u1, ck);
            p0 = p0.blend(1.0, a0.compare(VectorOperators.GE, Gelu.ERF_SATURATION));
            p0 = p0.blend(p0.neg(), x0.compare(VectorOperators.LT, 0.0));
            DoubleVector phi0 = x0.mul(x0).mul(-0.5).lanewise(VectorOperators.EXP).mul(Gelu.FRAC_1_SQRT_2PI);
            DoubleVector g0 = widen(dy, i + 0 * DL).mul(p0.add(1.0).mul(0.5).add(x0.mul(phi0)));
            ((FloatVector) g0.convertShape(VectorOperators.D2F, F_HALF, 0)).intoArray(d, i + 0 * DL);
            p1 = p1.blend(1.0, a1.compare(VectorOperators.GE, Gelu.ERF_SATURATION));
            p1 = p1.blend(p1.neg(), x1.compare(VectorOperators.LT, 0.0));
            DoubleVector phi1 = x1.mul(x1).mul(-0.5).lanewise(VectorOperators.EXP).mul(Gelu.FRAC_1_SQRT_2PI);
            DoubleVector g1 = widen(dy, i + 1 * DL).mul(p1.add(1.0).mul(0.5).add(x1.mul(phi1)));
            ((FloatVector) g1.convertShape(VectorOperators.D2F, F_HALF, 0)).intoArray(d, i + 1 * DL);
        }
        for (int bound = D.loopBound(n); i < bound; i += DL) {
            DoubleVector x = widen(pre, i);
            DoubleVector phi = x.mul(x).mul(-0.5).lanewise(VectorOperators.EXP).mul(Gelu.FRAC_1_SQRT_2PI);
            DoubleVector derivative = erf(x).add(1.0).mul(0.5).add(x.mul(phi));
            DoubleVector g = widen(dy, i).mul(derivative);
            ((FloatVector) g.convertShape(VectorOperators.D2F, F_HALF, 0)).intoArray(d, i);
        }
        Gelu.backward(pre, dy, d, i, n);
    }

    /** erf(x/√2) lane by lane: {@link Gelu#erf}'s polynomial by Horner's rule, saturated, the sign restored. */
    private static DoubleVector erf(DoubleVector x) {
        double[] c = Gelu.C;
        DoubleVector a = x.mul(Gelu.FRAC_1_SQRT_2).abs();
        DoubleVector u = a.mul(0.5).sub(1.0);
        DoubleVector p = DoubleVector.broadcast(D, c[20]);
        // Horner's rule, unrolled by hand as in the forward kernel
        p = p.fma(u, DoubleVector.broadcast(D, c[19]));
        p = p.fma(u, DoubleVector.broadcast(D, c[18]));
        p = p.fma(u, DoubleVector.broadcast(D, c[17]));
        p = p.fma(u, DoubleVector.broadcast(D, c[16]));
        p = p.fma(u, DoubleVector.broadcast(D, c[15]));
        p = p.fma(u, DoubleVector.broadcast(D, c[14]));
        p = p.fma(u, DoubleVector.broadcast(D, c[13]));
        p = p.fma(u, DoubleVector.broadcast(D, c[12]));
        p = p.fma(u, DoubleVector.broadcast(D, c[11]));
        p = p.fma(u, DoubleVector.broadcast(D, c[10]));
        p = p.fma(u, DoubleVector.broadcast(D, c[9]));
        p = p.fma(u, DoubleVector.broadcast(D, c[8]));
        p = p.fma(u, DoubleVector.broadcast(D, c[7]));
        p = p.fma(u, DoubleVector.broadcast(D, c[6]));
        p = p.fma(u, DoubleVector.broadcast(D, c[5]));
        p = p.fma(u, DoubleVector.broadcast(D, c[4]));
        p = p.fma(u, DoubleVector.broadcast(D, c[3]));
        p = p.fma(u, DoubleVector.broadcast(D, c[2]));
        p = p.fma(u, DoubleVector.broadcast(D, c[1]));
        p = p.fma(u, DoubleVector.broadcast(D, c[0]));
        p = p.blend(1.0, a.compare(VectorOperators.GE, Gelu.ERF_SATURATION));
        VectorMask<Double> negative = x.compare(VectorOperators.LT, 0.0);
        return p.blend(p.neg(), negative);
    }

    @Override
    void layerNorm(float[] x, float[] residual, int rows, int E, float[] gamma, float[] beta, float eps,
                   float[] xhat, float[] rstd) {
        int fBound = F.loopBound(E);
        int bound = D.loopBound(E);
        for (int r = 0; r < rows; r++) {
            int o = r * E;
            if (residual != null) {
                int j = 0;
                for (; j < fBound; j += FL) {
                    FloatVector.fromArray(F, x, o + j).add(FloatVector.fromArray(F, residual, o + j)).intoArray(x, o + j);
                }
                for (; j < E; j++) {
                    x[o + j] += residual[o + j];
                }
            }
            DoubleVector acc = DoubleVector.zero(D);
            int j = 0;
            for (; j < bound; j += DL) {
                acc = acc.add(widen(x, o + j));
            }
            double sum = acc.reduceLanes(VectorOperators.ADD);
            for (; j < E; j++) {
                sum += x[o + j];
            }
            double mean = sum / E;
            DoubleVector sq = DoubleVector.zero(D);
            for (j = 0; j < bound; j += DL) {
                DoubleVector dv = widen(x, o + j).sub(mean);
                sq = dv.fma(dv, sq);
            }
            double var = sq.reduceLanes(VectorOperators.ADD);
            for (; j < E; j++) {
                double dv = x[o + j] - mean;
                var += dv * dv;
            }
            double inv = 1.0 / Math.sqrt(var / E + eps);
            if (xhat != null) {
                rstd[r] = (float) inv;
            }
            for (j = 0; j < bound; j += DL) {
                DoubleVector xh = widen(x, o + j).sub(mean).mul(inv);
                if (xhat != null) {
                    narrow(xh).intoArray(xhat, o + j);
                }
                narrow(xh.mul(widen(gamma, j)).add(widen(beta, j))).intoArray(x, o + j);
            }
            for (; j < E; j++) {
                double xh = (x[o + j] - mean) * inv;
                if (xhat != null) {
                    xhat[o + j] = (float) xh;
                }
                x[o + j] = (float) (xh * gamma[j] + beta[j]);
            }
        }
    }

    @Override
    void layerNormBackward(float[] dy, float[] xhat, float[] rstd, int rows, int E, float[] gamma, float[] dx,
                           float[] grad, int gammaOff, int betaOff, double[] sums) {
        int bound = D.loopBound(E);
        if (grad != null) {
            java.util.Arrays.fill(sums, 0, 2 * E, 0.0);
        }
        for (int r = 0; r < rows; r++) {
            int o = r * E;
            DoubleVector sg = DoubleVector.zero(D), sgx = sg;
            int j = 0;
            for (; j < bound; j += DL) {
                DoubleVector d = widen(dy, o + j), xh = widen(xhat, o + j);
                DoubleVector g = d.mul(widen(gamma, j));
                sg = sg.add(g);
                sgx = sgx.add(g.mul(xh));
                if (grad != null) {
                    DoubleVector.fromArray(D, sums, j).add(d.mul(xh)).intoArray(sums, j);
                    DoubleVector.fromArray(D, sums, E + j).add(d).intoArray(sums, E + j);
                }
            }
            double sumG = sg.reduceLanes(VectorOperators.ADD), sumGx = sgx.reduceLanes(VectorOperators.ADD);
            for (; j < E; j++) {
                double g = (double) dy[o + j] * gamma[j];
                sumG += g;
                sumGx += g * xhat[o + j];
                if (grad != null) {
                    sums[j] += (double) dy[o + j] * xhat[o + j];
                    sums[E + j] += dy[o + j];
                }
            }
            double meanG = sumG / E, meanGx = sumGx / E, inv = rstd[r];
            for (j = 0; j < bound; j += DL) {
                DoubleVector g = widen(dy, o + j).mul(widen(gamma, j));
                narrow(g.sub(meanG).sub(widen(xhat, o + j).mul(meanGx)).mul(inv)).intoArray(dx, o + j);
            }
            for (; j < E; j++) {
                double g = (double) dy[o + j] * gamma[j];
                dx[o + j] = (float) (inv * (g - meanG - xhat[o + j] * meanGx));
            }
        }
        if (grad != null) {
            for (int c = 0; c < E; c++) {
                grad[gammaOff + c] += (float) sums[c];
                grad[betaOff + c] += (float) sums[E + c];
            }
        }
    }

    @Override
    void addAndClear(float[] part, double[] sums, int from, int to) {
        FloatVector zero = FloatVector.zero(F_HALF);
        int i = from;
        for (int bound = from + D.loopBound(to - from); i < bound; i += DL) {
            widen(part, i).add(DoubleVector.fromArray(D, sums, i)).intoArray(sums, i);
            zero.intoArray(part, i);
        }
        for (; i < to; i++) {
            sums[i] += part[i];
            part[i] = 0f;
        }
    }

    /** Double lanes rounded to a half-width float vector. */
    private static FloatVector narrow(DoubleVector v) {
        return (FloatVector) v.convertShape(VectorOperators.D2F, F_HALF, 0);
    }

    /** Floats {@code a[i … i + DL)} widened to double lanes. */
    private static DoubleVector widen(float[] a, int i) {
        return (DoubleVector) FloatVector.fromArray(F_HALF, a, i).convertShape(VectorOperators.F2D, D, 0);
    }

    @Override
    String name() {
        return "vector:" + D.vectorBitSize() + "-bit";
    }
}

package io.sparkattention.bert;

import io.sparkattention.kernel.VectorDoubleExp;
import io.sparkattention.kernel.VectorWidening;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link EncoderMath} on the Java Vector API.
 *
 * <p><b>GELU</b> in double lanes: {@link Gelu}'s erf polynomial (degree 20 in
 * {@code u = |z|/2 − 1}, saturated to ±1 beyond |z| = 4) evaluated by Estrin's scheme on
 * {@code DoubleVector}s, floats widened and narrowed a vector at a time; the same arithmetic as
 * {@link Gelu#gelu} up to the order of the final products (so within the same 1e-7). Its backward,
 * {@code dy·(Φ(x) + x·φ(x))}, in the same lanes, φ's exponential by {@link VectorDoubleExp} (the
 * same bits in every JIT tier, within 1e-14 of {@code Math.exp}).
 *
 * <p><b>LayerNorm</b> by {@link LayerNorm}'s accumulation rule: the residual added in float
 * lanes, then the sum, the sum of squared deviations and {@code (x − mean)·(1/σ)·γ + β} in double
 * lanes, rounded once. Sums are lane-wise, then reduced; tails shorter than a double vector run
 * the same arithmetic one element at a time. Its backward likewise: a row's two sums lane-wise in
 * double, dγ and dβ summed per column over the rows in double (as {@link LayerNorm#backward}, so
 * the same bits), dx in double lanes.
 *
 * <p><b>Small loops, arrays between them.</b> Floats are widened into a thread's scratch doubles
 * ({@link VectorWidening}: full-width float vectors only, one float shape in the JVM), computed on
 * there one double vector a step, and narrowed back; no loop hands a vector to a method. JDK 17's
 * C2 compiles a large vector method only up to a node budget: the calls past it (the last FMAs of
 * two erf chains side by side, a helper returning a vector) are left as calls, whose vectors are
 * boxed on the heap and run the Vector API's Java fallback (in a fine-tuning executor, tens of
 * GB a minute, and a second float shape in the JVM made the projections' micro-kernel box its
 * accumulators too). Each loop here stays far below that budget.
 */
final class VectorEncoderMath extends EncoderMath {

    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    private static final int DL = D.length();
    private static final int FL = F.length();

    @Override
    public void gelu(float[] y, int n) {
        int bound = D.loopBound(n);
        VectorWidening.halfGate(y, bound, VectorEncoderMath::erfVectors);
        Gelu.apply(y, bound, n);
    }

    @Override
    void geluBackward(float[] pre, float[] dy, float[] d, int n) {
        int bound = D.loopBound(n);
        int size = Math.min(bound, VectorWidening.CHUNK);
        double[] xs = VectorWidening.scratch(0, size), dys = VectorWidening.scratch(1, size);
        double[] erfs = VectorWidening.scratch(2, size), gaussians = VectorWidening.scratch(3, size);
        for (int from = 0; from < bound; from += VectorWidening.CHUNK) {
            int len = Math.min(VectorWidening.CHUNK, bound - from);
            VectorWidening.widen(pre, from, len, xs);
            VectorWidening.widen(dy, from, len, dys);
            erfVectors(xs, len, erfs);
            // e^(−x²/2) by VectorDoubleExp: the same bits in every JIT tier (the Vector API's EXP is
            // a vector math library's once C2 compiles it, Math.exp lane by lane before).
            for (int i = 0; i < len; i += DL) {
                DoubleVector x = DoubleVector.fromArray(D, xs, i);
                x.mul(x).mul(-0.5).intoArray(gaussians, i);
            }
            VectorDoubleExp.expInPlace(gaussians, len);
            // dy·(Φ(x) + x·φ(x)), Φ(x) = (1 + erf(x/√2))/2
            for (int i = 0; i < len; i += DL) {
                DoubleVector x = DoubleVector.fromArray(D, xs, i);
                DoubleVector phi = DoubleVector.fromArray(D, gaussians, i).mul(Gelu.FRAC_1_SQRT_2PI);
                DoubleVector.fromArray(D, dys, i).mul(DoubleVector.fromArray(D, erfs, i).add(1.0).mul(0.5)
                    .add(x.mul(phi))).intoArray(xs, i);
            }
            VectorWidening.narrow(xs, len, d, from);
        }
        Gelu.backward(pre, dy, d, bound, n);
    }

    /**
     * erf(x/√2) of {@code xs[0, len)} into {@code erfs} (len a multiple of DL): {@link Gelu#polynomial}'s
     * Estrin scheme, written out in its order (the same bits), saturated, the sign restored. Three
     * small loops through {@code erfs} (u, the polynomial, saturation and sign), not one: in a
     * fine-tuning executor C2 (JDK 17) compiled the single loop only up to its node budget, left
     * its last store as a call and ran it on the Vector API's Java fallback (a boxed vector stored
     * lane by lane): GELU held 14% of the executor threads' samples, 8% in three loops.
     */
    private static void erfVectors(double[] xs, int len, double[] erfs) {
        // u = |x/√2|/2 − 1
        for (int i = 0; i < len; i += DL) {
            DoubleVector.fromArray(D, xs, i).mul(Gelu.FRAC_1_SQRT_2).abs().mul(0.5).sub(1.0).intoArray(erfs, i);
        }
        polynomial(erfs, len);
        for (int i = 0; i < len; i += DL) {
            DoubleVector x = DoubleVector.fromArray(D, xs, i);
            DoubleVector a = x.mul(Gelu.FRAC_1_SQRT_2).abs();
            DoubleVector p = DoubleVector.fromArray(D, erfs, i).blend(1.0, a.compare(VectorOperators.GE,
                Gelu.ERF_SATURATION));
            p.blend(p.neg(), x.compare(VectorOperators.LT, 0.0)).intoArray(erfs, i);
        }
    }

    /** {@code us[i] ← Σ C[j]·us[i]ʲ} for i &lt; len, by {@link Gelu#polynomial}'s operations in its order. */
    private static void polynomial(double[] us, int len) {
        double[] c = Gelu.C;
        for (int i = 0; i < len; i += DL) {
            DoubleVector u = DoubleVector.fromArray(D, us, i);
            DoubleVector u2 = u.mul(u), u4 = u2.mul(u2), u8 = u4.mul(u4), u16 = u8.mul(u8);
            DoubleVector q0 = u.fma(DoubleVector.broadcast(D, c[1]), DoubleVector.broadcast(D, c[0]));
            DoubleVector q1 = u.fma(DoubleVector.broadcast(D, c[3]), DoubleVector.broadcast(D, c[2]));
            DoubleVector q2 = u.fma(DoubleVector.broadcast(D, c[5]), DoubleVector.broadcast(D, c[4]));
            DoubleVector q3 = u.fma(DoubleVector.broadcast(D, c[7]), DoubleVector.broadcast(D, c[6]));
            DoubleVector q4 = u.fma(DoubleVector.broadcast(D, c[9]), DoubleVector.broadcast(D, c[8]));
            DoubleVector q5 = u.fma(DoubleVector.broadcast(D, c[11]), DoubleVector.broadcast(D, c[10]));
            DoubleVector q6 = u.fma(DoubleVector.broadcast(D, c[13]), DoubleVector.broadcast(D, c[12]));
            DoubleVector q7 = u.fma(DoubleVector.broadcast(D, c[15]), DoubleVector.broadcast(D, c[14]));
            DoubleVector q8 = u.fma(DoubleVector.broadcast(D, c[17]), DoubleVector.broadcast(D, c[16]));
            DoubleVector q9 = u.fma(DoubleVector.broadcast(D, c[19]), DoubleVector.broadcast(D, c[18]));
            DoubleVector r0 = q1.fma(u2, q0), r1 = q3.fma(u2, q2), r2 = q5.fma(u2, q4);
            DoubleVector r3 = q7.fma(u2, q6), r4 = q9.fma(u2, q8);
            DoubleVector s0 = r1.fma(u4, r0), s1 = r3.fma(u4, r2), s2 = u4.fma(DoubleVector.broadcast(D, c[20]), r4);
            s2.fma(u16, s1.fma(u8, s0)).intoArray(us, i);
        }
    }

    @Override
    void layerNorm(float[] x, float[] residual, int rows, int E, float[] gamma, float[] beta, float eps,
                   float[] xhat, float[] rstd) {
        int fBound = F.loopBound(E);
        int bound = D.loopBound(E);
        // Scratch: the row, its x̂, γ and β, as doubles.
        double[] xs = VectorWidening.scratch(0, E), hs = VectorWidening.scratch(1, E);
        double[] gs = VectorWidening.scratch(2, E), bs = VectorWidening.scratch(3, E);
        VectorWidening.widen(gamma, 0, E, gs);
        VectorWidening.widen(beta, 0, E, bs);
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
            VectorWidening.widen(x, o, E, xs);
            double mean = sum(xs, bound, E) / E;
            double inv = 1.0 / Math.sqrt(squaredDeviations(xs, bound, E, mean) / E + eps);
            if (xhat != null) {
                rstd[r] = (float) inv;
            }
            normalize(xs, hs, gs, bs, bound, mean, inv);
            VectorWidening.narrow(xs, bound, x, o);
            if (xhat != null) {
                VectorWidening.narrow(hs, bound, xhat, o);
            }
            for (int j = bound; j < E; j++) {
                double xh = (x[o + j] - mean) * inv;
                if (xhat != null) {
                    xhat[o + j] = (float) xh;
                }
                x[o + j] = (float) (xh * gamma[j] + beta[j]);
            }
        }
    }

    /** Σ xs[0, E): lane-wise over [0, bound), reduced, then the rest one at a time. */
    private static double sum(double[] xs, int bound, int E) {
        DoubleVector acc = DoubleVector.zero(D);
        for (int j = 0; j < bound; j += DL) {
            acc = acc.add(DoubleVector.fromArray(D, xs, j));
        }
        double sum = acc.reduceLanes(VectorOperators.ADD);
        for (int j = bound; j < E; j++) {
            sum += xs[j];
        }
        return sum;
    }

    /** Σ (xs[j] − mean)² over [0, E), lane-wise over [0, bound) as {@link #sum}. */
    private static double squaredDeviations(double[] xs, int bound, int E, double mean) {
        DoubleVector sq = DoubleVector.zero(D);
        for (int j = 0; j < bound; j += DL) {
            DoubleVector dv = DoubleVector.fromArray(D, xs, j).sub(mean);
            sq = dv.fma(dv, sq);
        }
        double var = sq.reduceLanes(VectorOperators.ADD);
        for (int j = bound; j < E; j++) {
            double dv = xs[j] - mean;
            var += dv * dv;
        }
        return var;
    }

    /** Over [0, bound): x̂ = (x − mean)·inv into hs, and x̂·γ + β into xs. */
    private static void normalize(double[] xs, double[] hs, double[] gs, double[] bs, int bound, double mean,
                                  double inv) {
        for (int j = 0; j < bound; j += DL) {
            DoubleVector xh = DoubleVector.fromArray(D, xs, j).sub(mean).mul(inv);
            xh.intoArray(hs, j);
            xh.mul(DoubleVector.fromArray(D, gs, j)).add(DoubleVector.fromArray(D, bs, j)).intoArray(xs, j);
        }
    }

    @Override
    void layerNormBackward(float[] dy, float[] xhat, float[] rstd, int rows, int E, float[] gamma, float[] dx,
                           float[] grad, int gammaOff, int betaOff, double[] sums) {
        int bound = D.loopBound(E);
        double[] ds = VectorWidening.scratch(0, E), hs = VectorWidening.scratch(1, E);
        double[] gs = VectorWidening.scratch(2, E);
        VectorWidening.widen(gamma, 0, E, gs);
        if (grad != null) {
            java.util.Arrays.fill(sums, 0, 2 * E, 0.0);
        }
        double[] rowSums = new double[2];
        for (int r = 0; r < rows; r++) {
            int o = r * E;
            VectorWidening.widen(dy, o, E, ds);
            VectorWidening.widen(xhat, o, E, hs);
            backwardSums(ds, hs, gs, bound, grad != null ? sums : null, E, rowSums);
            double sumG = rowSums[0], sumGx = rowSums[1];
            for (int j = bound; j < E; j++) {
                double g = (double) dy[o + j] * gamma[j];
                sumG += g;
                sumGx += g * xhat[o + j];
                if (grad != null) {
                    sums[j] += (double) dy[o + j] * xhat[o + j];
                    sums[E + j] += dy[o + j];
                }
            }
            double meanG = sumG / E, meanGx = sumGx / E, inv = rstd[r];
            inputGradient(ds, hs, gs, bound, meanG, meanGx, inv);
            VectorWidening.narrow(ds, bound, dx, o);
            for (int j = bound; j < E; j++) {
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

    /**
     * A row's lane-wise Σ g and Σ g·x̂ (g = dy·γ) over [0, bound), reduced into {@code out}, and,
     * when {@code sums} is given, dy·x̂ and dy added into its dγ and dβ columns.
     */
    private static void backwardSums(double[] ds, double[] hs, double[] gs, int bound, double[] sums, int E,
                                     double[] out) {
        DoubleVector sg = DoubleVector.zero(D), sgx = sg;
        for (int j = 0; j < bound; j += DL) {
            DoubleVector d = DoubleVector.fromArray(D, ds, j), xh = DoubleVector.fromArray(D, hs, j);
            DoubleVector g = d.mul(DoubleVector.fromArray(D, gs, j));
            sg = sg.add(g);
            sgx = sgx.add(g.mul(xh));
            if (sums != null) {
                DoubleVector.fromArray(D, sums, j).add(d.mul(xh)).intoArray(sums, j);
                DoubleVector.fromArray(D, sums, E + j).add(d).intoArray(sums, E + j);
            }
        }
        out[0] = sg.reduceLanes(VectorOperators.ADD);
        out[1] = sgx.reduceLanes(VectorOperators.ADD);
    }

    /** dx = (g − mean g − x̂·mean(g·x̂))·inv over [0, bound), into ds (read as dy). */
    private static void inputGradient(double[] ds, double[] hs, double[] gs, int bound, double meanG, double meanGx,
                                      double inv) {
        for (int j = 0; j < bound; j += DL) {
            DoubleVector g = DoubleVector.fromArray(D, ds, j).mul(DoubleVector.fromArray(D, gs, j));
            g.sub(meanG).sub(DoubleVector.fromArray(D, hs, j).mul(meanGx)).mul(inv).intoArray(ds, j);
        }
    }

    @Override
    void addAndClear(float[] part, double[] sums, int from, int to) {
        FloatVector zero = FloatVector.zero(F);
        int i = from;
        for (int bound = from + F.loopBound(to - from); i < bound; i += FL) {
            FloatVector v = FloatVector.fromArray(F, part, i);
            ((DoubleVector) v.convertShape(VectorOperators.F2D, D, 0)).add(DoubleVector.fromArray(D, sums, i))
                .intoArray(sums, i);
            ((DoubleVector) v.convertShape(VectorOperators.F2D, D, 1)).add(DoubleVector.fromArray(D, sums, i + DL))
                .intoArray(sums, i + DL);
            zero.intoArray(part, i);
        }
        for (; i < to; i++) {
            sums[i] += part[i];
            part[i] = 0f;
        }
    }

    @Override
    String name() {
        return "vector:" + D.vectorBitSize() + "-bit";
    }
}

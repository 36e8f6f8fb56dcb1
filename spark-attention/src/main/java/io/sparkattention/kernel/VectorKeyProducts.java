package io.sparkattention.kernel;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link VectorTileOps#accumulateKeys}: the backward pass's key-side product
 * <pre>
 *   C[i, t] += alpha · Σ_{r<w} P[i, r] · B[r, t]      key i < nk, column t < n
 * </pre>
 * with P the key-major strip ({@code p[i·lds + r]}), B and C row-major. Register blocks of
 * {@value #KEYS} keys × two vectors of columns: per query r, two vector loads of B's row r shared
 * by the block's keys and one broadcast of {@code P[i, r]} per key, so 8 accumulators, 2 loaded
 * vectors and 1 broadcast fit AVX2's 16 registers. Then single keys, one-vector column blocks and
 * a scalar column tail. The sums start at 0 and are added to C once, scaled by alpha.
 */
final class VectorKeyProducts {

    private static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED;
    private static final int LANES = SPECIES.length();
    /** Keys per register block. */
    static final int KEYS = 4;

    private VectorKeyProducts() {
    }

    static void accumulateKeys(int w, int nk, int n, float alpha, float[] p, int lds, float[] b, int bOff, int ldb,
                               float[] c, int cOff, int ldc) {
        int t = 0;
        for (; t + 2 * LANES <= n; t += 2 * LANES) {
            int i = 0;
            for (; i + KEYS <= nk; i += KEYS) {
                twoVectorsFourKeys(w, i, t, alpha, p, lds, b, bOff, ldb, c, cOff, ldc);
            }
            for (; i < nk; i++) {
                FloatVector a0 = FloatVector.zero(SPECIES), a1 = a0;
                for (int r = 0, pi = i * lds, bi = bOff + t; r < w; r++, bi += ldb) {
                    final FloatVector x = FloatVector.broadcast(SPECIES, p[pi + r]);
                    a0 = x.fma(FloatVector.fromArray(SPECIES, b, bi), a0);
                    a1 = x.fma(FloatVector.fromArray(SPECIES, b, bi + LANES), a1);
                }
                addScaled(a0, alpha, c, cOff + i * ldc + t);
                addScaled(a1, alpha, c, cOff + i * ldc + t + LANES);
            }
        }
        for (; t + LANES <= n; t += LANES) {
            for (int i = 0; i < nk; i++) {
                FloatVector a = FloatVector.zero(SPECIES);
                for (int r = 0, pi = i * lds, bi = bOff + t; r < w; r++, bi += ldb) {
                    a = FloatVector.broadcast(SPECIES, p[pi + r]).fma(FloatVector.fromArray(SPECIES, b, bi), a);
                }
                addScaled(a, alpha, c, cOff + i * ldc + t);
            }
        }
        for (; t < n; t++) {
            for (int i = 0; i < nk; i++) {
                float sum = 0f;
                for (int r = 0, pi = i * lds, bi = bOff + t; r < w; r++, bi += ldb) {
                    sum += p[pi + r] * b[bi];
                }
                c[cOff + i * ldc + t] += alpha * sum;
            }
        }
    }

    /** Keys {@code [i, i + 4)} × columns {@code [t, t + 2·LANES)}. */
    private static void twoVectorsFourKeys(int w, int i, int t, float alpha, float[] p, int lds, float[] b, int bOff,
                                           int ldb, float[] c, int cOff, int ldc) {
        final int p0 = i * lds, p1 = p0 + lds, p2 = p1 + lds, p3 = p2 + lds;
        FloatVector a00 = FloatVector.zero(SPECIES), a01 = a00, a10 = a00, a11 = a00;
        FloatVector a20 = a00, a21 = a00, a30 = a00, a31 = a00;
        for (int r = 0, bi = bOff + t; r < w; r++, bi += ldb) {
            final FloatVector b0 = FloatVector.fromArray(SPECIES, b, bi);
            final FloatVector b1 = FloatVector.fromArray(SPECIES, b, bi + LANES);
            FloatVector x = FloatVector.broadcast(SPECIES, p[p0 + r]);
            a00 = x.fma(b0, a00);
            a01 = x.fma(b1, a01);
            x = FloatVector.broadcast(SPECIES, p[p1 + r]);
            a10 = x.fma(b0, a10);
            a11 = x.fma(b1, a11);
            x = FloatVector.broadcast(SPECIES, p[p2 + r]);
            a20 = x.fma(b0, a20);
            a21 = x.fma(b1, a21);
            x = FloatVector.broadcast(SPECIES, p[p3 + r]);
            a30 = x.fma(b0, a30);
            a31 = x.fma(b1, a31);
        }
        final int o = cOff + i * ldc + t;
        addScaled(a00, alpha, c, o);
        addScaled(a01, alpha, c, o + LANES);
        addScaled(a10, alpha, c, o + ldc);
        addScaled(a11, alpha, c, o + ldc + LANES);
        addScaled(a20, alpha, c, o + 2 * ldc);
        addScaled(a21, alpha, c, o + 2 * ldc + LANES);
        addScaled(a30, alpha, c, o + 3 * ldc);
        addScaled(a31, alpha, c, o + 3 * ldc + LANES);
    }

    /** {@code c[o, o + LANES) += alpha·a}. */
    private static void addScaled(FloatVector a, float alpha, float[] c, int o) {
        a.fma(FloatVector.broadcast(SPECIES, alpha), FloatVector.fromArray(SPECIES, c, o)).intoArray(c, o);
    }
}

import jdk.incubator.vector.*;
import java.util.*;

public class AccumulateChunks {
  static final VectorSpecies<Float> SP = FloatVector.SPECIES_256;
  static final int L = 8, W = 16, KD = 64;

  static void cur(int nk, int dv, float[] p, float[] v, int vOff, int ldv, float[] acc, int accOff) {
    for (int t = 0; t + 6 <= dv; t += 6) {
      final int o = accOff + t * W;
      FloatVector a00 = FloatVector.fromArray(SP, acc, o), a01 = FloatVector.fromArray(SP, acc, o + L);
      FloatVector a10 = FloatVector.fromArray(SP, acc, o + W), a11 = FloatVector.fromArray(SP, acc, o + W + L);
      FloatVector a20 = FloatVector.fromArray(SP, acc, o + 2 * W), a21 = FloatVector.fromArray(SP, acc, o + 2 * W + L);
      FloatVector a30 = FloatVector.fromArray(SP, acc, o + 3 * W), a31 = FloatVector.fromArray(SP, acc, o + 3 * W + L);
      FloatVector a40 = FloatVector.fromArray(SP, acc, o + 4 * W), a41 = FloatVector.fromArray(SP, acc, o + 4 * W + L);
      FloatVector a50 = FloatVector.fromArray(SP, acc, o + 5 * W), a51 = FloatVector.fromArray(SP, acc, o + 5 * W + L);
      for (int c = 0, pi = 0, vi = vOff + t; c < nk; c++, pi += W, vi += ldv) {
        final FloatVector b0 = FloatVector.fromArray(SP, p, pi), b1 = FloatVector.fromArray(SP, p, pi + L);
        FloatVector x = FloatVector.broadcast(SP, v[vi]); a00 = x.fma(b0, a00); a01 = x.fma(b1, a01);
        x = FloatVector.broadcast(SP, v[vi + 1]); a10 = x.fma(b0, a10); a11 = x.fma(b1, a11);
        x = FloatVector.broadcast(SP, v[vi + 2]); a20 = x.fma(b0, a20); a21 = x.fma(b1, a21);
        x = FloatVector.broadcast(SP, v[vi + 3]); a30 = x.fma(b0, a30); a31 = x.fma(b1, a31);
        x = FloatVector.broadcast(SP, v[vi + 4]); a40 = x.fma(b0, a40); a41 = x.fma(b1, a41);
        x = FloatVector.broadcast(SP, v[vi + 5]); a50 = x.fma(b0, a50); a51 = x.fma(b1, a51);
      }
      a00.intoArray(acc, o); a01.intoArray(acc, o + L); a10.intoArray(acc, o + W); a11.intoArray(acc, o + W + L);
      a20.intoArray(acc, o + 2 * W); a21.intoArray(acc, o + 2 * W + L); a30.intoArray(acc, o + 3 * W); a31.intoArray(acc, o + 3 * W + L);
      a40.intoArray(acc, o + 4 * W); a41.intoArray(acc, o + 4 * W + L); a50.intoArray(acc, o + 5 * W); a51.intoArray(acc, o + 5 * W + L);
    }
  }

  static int CH = Integer.getInteger("ch", 32);
  static void chunk(int nk, int dv, float[] p, float[] v, int vOff, int ldv, float[] acc, int accOff) {
    for (int c0 = 0; c0 < nk; c0 += CH) {
    final int c1 = Math.min(nk, c0 + CH);
    for (int t = 0; t + 6 <= dv; t += 6) {
      final int o = accOff + t * W;
      FloatVector a00 = FloatVector.fromArray(SP, acc, o), a01 = FloatVector.fromArray(SP, acc, o + L);
      FloatVector a10 = FloatVector.fromArray(SP, acc, o + W), a11 = FloatVector.fromArray(SP, acc, o + W + L);
      FloatVector a20 = FloatVector.fromArray(SP, acc, o + 2 * W), a21 = FloatVector.fromArray(SP, acc, o + 2 * W + L);
      FloatVector a30 = FloatVector.fromArray(SP, acc, o + 3 * W), a31 = FloatVector.fromArray(SP, acc, o + 3 * W + L);
      FloatVector a40 = FloatVector.fromArray(SP, acc, o + 4 * W), a41 = FloatVector.fromArray(SP, acc, o + 4 * W + L);
      FloatVector a50 = FloatVector.fromArray(SP, acc, o + 5 * W), a51 = FloatVector.fromArray(SP, acc, o + 5 * W + L);
      for (int c = c0, pi = c0 * W, vi = vOff + t + c0 * ldv; c < c1; c++, pi += W, vi += ldv) {
        final FloatVector b0 = FloatVector.fromArray(SP, p, pi), b1 = FloatVector.fromArray(SP, p, pi + L);
        FloatVector x = FloatVector.broadcast(SP, v[vi]); a00 = x.fma(b0, a00); a01 = x.fma(b1, a01);
        x = FloatVector.broadcast(SP, v[vi + 1]); a10 = x.fma(b0, a10); a11 = x.fma(b1, a11);
        x = FloatVector.broadcast(SP, v[vi + 2]); a20 = x.fma(b0, a20); a21 = x.fma(b1, a21);
        x = FloatVector.broadcast(SP, v[vi + 3]); a30 = x.fma(b0, a30); a31 = x.fma(b1, a31);
        x = FloatVector.broadcast(SP, v[vi + 4]); a40 = x.fma(b0, a40); a41 = x.fma(b1, a41);
        x = FloatVector.broadcast(SP, v[vi + 5]); a50 = x.fma(b0, a50); a51 = x.fma(b1, a51);
      }
      a00.intoArray(acc, o); a01.intoArray(acc, o + L); a10.intoArray(acc, o + W); a11.intoArray(acc, o + W + L);
      a20.intoArray(acc, o + 2 * W); a21.intoArray(acc, o + 2 * W + L); a30.intoArray(acc, o + 3 * W); a31.intoArray(acc, o + 3 * W + L);
      a40.intoArray(acc, o + 4 * W); a41.intoArray(acc, o + 4 * W + L); a50.intoArray(acc, o + 5 * W); a51.intoArray(acc, o + 5 * W + L);
    }
  }
  }
  static void a64(int nk, int dv, float[] p, float[] v, int vOff, float[] acc, int accOff) {
    for (int t = 0; t + 6 <= dv; t += 6) {
      final int o = accOff + t * W, v0 = vOff + t;
      FloatVector a00 = FloatVector.fromArray(SP, acc, o), a01 = FloatVector.fromArray(SP, acc, o + L);
      FloatVector a10 = FloatVector.fromArray(SP, acc, o + W), a11 = FloatVector.fromArray(SP, acc, o + W + L);
      FloatVector a20 = FloatVector.fromArray(SP, acc, o + 2 * W), a21 = FloatVector.fromArray(SP, acc, o + 2 * W + L);
      FloatVector a30 = FloatVector.fromArray(SP, acc, o + 3 * W), a31 = FloatVector.fromArray(SP, acc, o + 3 * W + L);
      FloatVector a40 = FloatVector.fromArray(SP, acc, o + 4 * W), a41 = FloatVector.fromArray(SP, acc, o + 4 * W + L);
      FloatVector a50 = FloatVector.fromArray(SP, acc, o + 5 * W), a51 = FloatVector.fromArray(SP, acc, o + 5 * W + L);
      for (int c = 0; c < nk; c++) {
        final int pi = c * W, vi = v0 + c * KD;
        final FloatVector b0 = FloatVector.fromArray(SP, p, pi), b1 = FloatVector.fromArray(SP, p, pi + L);
        FloatVector x = FloatVector.broadcast(SP, v[vi]); a00 = x.fma(b0, a00); a01 = x.fma(b1, a01);
        x = FloatVector.broadcast(SP, v[vi + 1]); a10 = x.fma(b0, a10); a11 = x.fma(b1, a11);
        x = FloatVector.broadcast(SP, v[vi + 2]); a20 = x.fma(b0, a20); a21 = x.fma(b1, a21);
        x = FloatVector.broadcast(SP, v[vi + 3]); a30 = x.fma(b0, a30); a31 = x.fma(b1, a31);
        x = FloatVector.broadcast(SP, v[vi + 4]); a40 = x.fma(b0, a40); a41 = x.fma(b1, a41);
        x = FloatVector.broadcast(SP, v[vi + 5]); a50 = x.fma(b0, a50); a51 = x.fma(b1, a51);
      }
      a00.intoArray(acc, o); a01.intoArray(acc, o + L); a10.intoArray(acc, o + W); a11.intoArray(acc, o + W + L);
      a20.intoArray(acc, o + 2 * W); a21.intoArray(acc, o + 2 * W + L); a30.intoArray(acc, o + 3 * W); a31.intoArray(acc, o + 3 * W + L);
      a40.intoArray(acc, o + 4 * W); a41.intoArray(acc, o + 4 * W + L); a50.intoArray(acc, o + 5 * W); a51.intoArray(acc, o + 5 * W + L);
    }
  }

  static void a64b(int nk, int dv, float[] p, float[] v, int vOff, float[] acc, int accOff) {
    for (int t = 0; t + 6 <= dv; t += 6) {
      final int o = accOff + t * W, v0 = vOff + t;
      FloatVector a00 = FloatVector.fromArray(SP, acc, o), a01 = FloatVector.fromArray(SP, acc, o + L);
      FloatVector a10 = FloatVector.fromArray(SP, acc, o + W), a11 = FloatVector.fromArray(SP, acc, o + W + L);
      FloatVector a20 = FloatVector.fromArray(SP, acc, o + 2 * W), a21 = FloatVector.fromArray(SP, acc, o + 2 * W + L);
      FloatVector a30 = FloatVector.fromArray(SP, acc, o + 3 * W), a31 = FloatVector.fromArray(SP, acc, o + 3 * W + L);
      FloatVector a40 = FloatVector.fromArray(SP, acc, o + 4 * W), a41 = FloatVector.fromArray(SP, acc, o + 4 * W + L);
      FloatVector a50 = FloatVector.fromArray(SP, acc, o + 5 * W), a51 = FloatVector.fromArray(SP, acc, o + 5 * W + L);
      for (int c = 0, pi = 0, vi = v0; c < nk; c++, pi += W, vi += KD) {
        final FloatVector b0 = FloatVector.fromArray(SP, p, pi), b1 = FloatVector.fromArray(SP, p, pi + L);
        FloatVector x = FloatVector.broadcast(SP, v[vi]); a00 = x.fma(b0, a00); a01 = x.fma(b1, a01);
        x = FloatVector.broadcast(SP, v[vi + 1]); a10 = x.fma(b0, a10); a11 = x.fma(b1, a11);
        x = FloatVector.broadcast(SP, v[vi + 2]); a20 = x.fma(b0, a20); a21 = x.fma(b1, a21);
        x = FloatVector.broadcast(SP, v[vi + 3]); a30 = x.fma(b0, a30); a31 = x.fma(b1, a31);
        x = FloatVector.broadcast(SP, v[vi + 4]); a40 = x.fma(b0, a40); a41 = x.fma(b1, a41);
        x = FloatVector.broadcast(SP, v[vi + 5]); a50 = x.fma(b0, a50); a51 = x.fma(b1, a51);
      }
      a00.intoArray(acc, o); a01.intoArray(acc, o + L); a10.intoArray(acc, o + W); a11.intoArray(acc, o + W + L);
      a20.intoArray(acc, o + 2 * W); a21.intoArray(acc, o + 2 * W + L); a30.intoArray(acc, o + 3 * W); a31.intoArray(acc, o + 3 * W + L);
      a40.intoArray(acc, o + 4 * W); a41.intoArray(acc, o + 4 * W + L); a50.intoArray(acc, o + 5 * W); a51.intoArray(acc, o + 5 * W + L);
    }
  }

  public static void main(String[] a) {
    int nk = 256, dv = 60, reps = Integer.parseInt(a[0]);
    Random r = new Random(1);
    float[] p = new float[W * nk], v = new float[nk * KD], acc1 = new float[W * KD], acc2 = new float[W * KD];
    for (int i = 0; i < p.length; i++) p[i] = (float) r.nextGaussian();
    for (int i = 0; i < v.length; i++) v[i] = (float) r.nextGaussian();
    cur(nk, dv, p, v, 0, KD, acc1, 0); chunk(nk, dv, p, v, 0, KD, acc2, 0);
    if (!Arrays.equals(acc1, acc2)) throw new AssertionError("differ");
    int inner = 2000;
    double flops = 2.0 * W * nk * dv * inner;
    for (int round = 0; round < reps; round++) {
      long t0 = System.nanoTime();
      for (int i = 0; i < inner; i++) cur(nk, dv, p, v, 0, KD, acc1, 0);
      long t1 = System.nanoTime();
      for (int i = 0; i < inner; i++) chunk(nk, dv, p, v, 0, KD, acc2, 0);
      long t2 = System.nanoTime();
      for (int i = 0; i < inner; i++) a64b(nk, dv, p, v, 0, acc2, 0);
      long t3 = System.nanoTime();
      if (round >= reps / 2) System.out.printf("cur %.1f  chunk %.1f a64b %.1f GFLOP/s%n", flops / (t1 - t0), flops / (t2 - t1), flops / (t3 - t2));
    }
  }
}

import jdk.incubator.vector.*;
import java.util.*;

public class ScoreStride {
  static final VectorSpecies<Float> SP = FloatVector.SPECIES_256;
  static final int L = 8, W = 16;
  static final int KD = 64;

  static void cur(int nk, int d, float[] qp, int qpOff, float[] k, int kOff, int ldk, float[] s) {
    for (int c = 0; c + 6 <= nk; c += 6) {
      final int k0 = kOff + c * ldk, k1 = k0 + ldk, k2 = k1 + ldk, k3 = k2 + ldk, k4 = k3 + ldk, k5 = k4 + ldk;
      FloatVector a00 = FloatVector.zero(SP), a01 = a00, a10 = a00, a11 = a00, a20 = a00, a21 = a00;
      FloatVector a30 = a00, a31 = a00, a40 = a00, a41 = a00, a50 = a00, a51 = a00;
      for (int t = 0, q = qpOff; t < d; t++, q += W) {
        final FloatVector b0 = FloatVector.fromArray(SP, qp, q);
        final FloatVector b1 = FloatVector.fromArray(SP, qp, q + L);
        FloatVector x = FloatVector.broadcast(SP, k[k0 + t]); a00 = x.fma(b0, a00); a01 = x.fma(b1, a01);
        x = FloatVector.broadcast(SP, k[k1 + t]); a10 = x.fma(b0, a10); a11 = x.fma(b1, a11);
        x = FloatVector.broadcast(SP, k[k2 + t]); a20 = x.fma(b0, a20); a21 = x.fma(b1, a21);
        x = FloatVector.broadcast(SP, k[k3 + t]); a30 = x.fma(b0, a30); a31 = x.fma(b1, a31);
        x = FloatVector.broadcast(SP, k[k4 + t]); a40 = x.fma(b0, a40); a41 = x.fma(b1, a41);
        x = FloatVector.broadcast(SP, k[k5 + t]); a50 = x.fma(b0, a50); a51 = x.fma(b1, a51);
      }
      int o = c * W;
      a00.intoArray(s, o); a01.intoArray(s, o + L); a10.intoArray(s, o + W); a11.intoArray(s, o + W + L);
      a20.intoArray(s, o + 2*W); a21.intoArray(s, o + 2*W + L); a30.intoArray(s, o + 3*W); a31.intoArray(s, o + 3*W + L);
      a40.intoArray(s, o + 4*W); a41.intoArray(s, o + 4*W + L); a50.intoArray(s, o + 5*W); a51.intoArray(s, o + 5*W + L);
    }
  }

  /** Rows KD floats apart (a compile-time constant): one index register, the rows as displacements. */
  static void c64(int nk, int d, float[] qp, int qpOff, float[] k, int kOff, float[] s) {
    for (int c = 0; c + 6 <= nk; c += 6) {
      final int k0 = kOff + c * KD;
      FloatVector a00 = FloatVector.zero(SP), a01 = a00, a10 = a00, a11 = a00, a20 = a00, a21 = a00;
      FloatVector a30 = a00, a31 = a00, a40 = a00, a41 = a00, a50 = a00, a51 = a00;
      for (int t = 0; t < d; t++) {
        final int i = k0 + t, q = qpOff + t * W;
        final FloatVector b0 = FloatVector.fromArray(SP, qp, q);
        final FloatVector b1 = FloatVector.fromArray(SP, qp, q + L);
        FloatVector x = FloatVector.broadcast(SP, k[i]); a00 = x.fma(b0, a00); a01 = x.fma(b1, a01);
        x = FloatVector.broadcast(SP, k[i + KD]); a10 = x.fma(b0, a10); a11 = x.fma(b1, a11);
        x = FloatVector.broadcast(SP, k[i + 2 * KD]); a20 = x.fma(b0, a20); a21 = x.fma(b1, a21);
        x = FloatVector.broadcast(SP, k[i + 3 * KD]); a30 = x.fma(b0, a30); a31 = x.fma(b1, a31);
        x = FloatVector.broadcast(SP, k[i + 4 * KD]); a40 = x.fma(b0, a40); a41 = x.fma(b1, a41);
        x = FloatVector.broadcast(SP, k[i + 5 * KD]); a50 = x.fma(b0, a50); a51 = x.fma(b1, a51);
      }
      int o = c * W;
      a00.intoArray(s, o); a01.intoArray(s, o + L); a10.intoArray(s, o + W); a11.intoArray(s, o + W + L);
      a20.intoArray(s, o + 2*W); a21.intoArray(s, o + 2*W + L); a30.intoArray(s, o + 3*W); a31.intoArray(s, o + 3*W + L);
      a40.intoArray(s, o + 4*W); a41.intoArray(s, o + 4*W + L); a50.intoArray(s, o + 5*W); a51.intoArray(s, o + 5*W + L);
    }
  }

  /** same, KD variable */
  static void lin(int nk, int d, float[] qp, int qpOff, float[] k, int kOff, int KD, float[] s) {
    for (int c = 0; c + 6 <= nk; c += 6) {
      final int k0 = kOff + c * KD;
      FloatVector a00 = FloatVector.zero(SP), a01 = a00, a10 = a00, a11 = a00, a20 = a00, a21 = a00;
      FloatVector a30 = a00, a31 = a00, a40 = a00, a41 = a00, a50 = a00, a51 = a00;
      for (int t = 0; t < d; t++) {
        final int i = k0 + t, q = qpOff + t * W;
        final FloatVector b0 = FloatVector.fromArray(SP, qp, q);
        final FloatVector b1 = FloatVector.fromArray(SP, qp, q + L);
        FloatVector x = FloatVector.broadcast(SP, k[i]); a00 = x.fma(b0, a00); a01 = x.fma(b1, a01);
        x = FloatVector.broadcast(SP, k[i + KD]); a10 = x.fma(b0, a10); a11 = x.fma(b1, a11);
        x = FloatVector.broadcast(SP, k[i + 2 * KD]); a20 = x.fma(b0, a20); a21 = x.fma(b1, a21);
        x = FloatVector.broadcast(SP, k[i + 3 * KD]); a30 = x.fma(b0, a30); a31 = x.fma(b1, a31);
        x = FloatVector.broadcast(SP, k[i + 4 * KD]); a40 = x.fma(b0, a40); a41 = x.fma(b1, a41);
        x = FloatVector.broadcast(SP, k[i + 5 * KD]); a50 = x.fma(b0, a50); a51 = x.fma(b1, a51);
      }
      int o = c * W;
      a00.intoArray(s, o); a01.intoArray(s, o + L); a10.intoArray(s, o + W); a11.intoArray(s, o + W + L);
      a20.intoArray(s, o + 2*W); a21.intoArray(s, o + 2*W + L); a30.intoArray(s, o + 3*W); a31.intoArray(s, o + 3*W + L);
      a40.intoArray(s, o + 4*W); a41.intoArray(s, o + 4*W + L); a50.intoArray(s, o + 5*W); a51.intoArray(s, o + 5*W + L);
    }
  }

  public static void main(String[] a) {
    int nk = 252, d = 64, reps = Integer.parseInt(a[0]);
    Random r = new Random(1);
    float[] qp = new float[W * d], k = new float[nk * d], s1 = new float[nk * W], s2 = new float[nk * W];
    for (int i = 0; i < qp.length; i++) qp[i] = (float) r.nextGaussian();
    for (int i = 0; i < k.length; i++) k[i] = (float) r.nextGaussian();
    cur(nk, d, qp, 0, k, 0, d, s1); c64(nk, d, qp, 0, k, 0, s2);
    if (!Arrays.equals(s1, s2)) throw new AssertionError("differ");
    int inner = 2000;
    double flops = 2.0 * W * nk * d * inner;
    for (int round = 0; round < reps; round++) {
      long t0 = System.nanoTime();
      for (int i = 0; i < inner; i++) cur(nk, d, qp, 0, k, 0, d, s1);
      long t1 = System.nanoTime();
      for (int i = 0; i < inner; i++) c64(nk, d, qp, 0, k, 0, s2);
      long t2 = System.nanoTime();
      for (int i = 0; i < inner; i++) lin(nk, d, qp, 0, k, 0, d, s2);
      long t3 = System.nanoTime();
      if (round >= reps / 2) System.out.printf("cur %.1f  c64 %.1f lin %.1f GFLOP/s%n", flops / (t1 - t0), flops / (t2 - t1), flops / (t3 - t2));
    }
  }
}

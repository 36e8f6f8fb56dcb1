import jdk.incubator.vector.*;
import java.util.*;

public class Micro2 {
  static final VectorSpecies<Float> SP = FloatVector.SPECIES_256;
  static final int L = 8, W = 16;
  static final int D = 64, NK = 126;

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

  // indices linear in the loop variable t
  static void lin(int nk, int d, float[] qp, int qpOff, float[] k, int kOff, int ldk, float[] s) {
    for (int c = 0; c + 6 <= nk; c += 6) {
      final int k0 = kOff + c * ldk, k1 = k0 + ldk, k2 = k1 + ldk, k3 = k2 + ldk, k4 = k3 + ldk, k5 = k4 + ldk;
      FloatVector a00 = FloatVector.zero(SP), a01 = a00, a10 = a00, a11 = a00, a20 = a00, a21 = a00;
      FloatVector a30 = a00, a31 = a00, a40 = a00, a41 = a00, a50 = a00, a51 = a00;
      for (int t = 0; t < d; t++) {
        final FloatVector b0 = FloatVector.fromArray(SP, qp, qpOff + t * W);
        final FloatVector b1 = FloatVector.fromArray(SP, qp, qpOff + t * W + L);
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

  // K packed per 6-key group: kp[g*6*d + t*6 + i]; indices linear in t
  static void pk(int nk, int d, float[] qp, int qpOff, float[] kp, int kOff, int ldk, float[] s) {
    for (int c = 0; c + 6 <= nk; c += 6) {
      final int kb = c * d;
      FloatVector a00 = FloatVector.zero(SP), a01 = a00, a10 = a00, a11 = a00, a20 = a00, a21 = a00;
      FloatVector a30 = a00, a31 = a00, a40 = a00, a41 = a00, a50 = a00, a51 = a00;
      for (int t = 0; t < d; t++) {
        final FloatVector b0 = FloatVector.fromArray(SP, qp, qpOff + t * W);
        final FloatVector b1 = FloatVector.fromArray(SP, qp, qpOff + t * W + L);
        final int p = kb + t * 6;
        FloatVector x = FloatVector.broadcast(SP, kp[p]); a00 = x.fma(b0, a00); a01 = x.fma(b1, a01);
        x = FloatVector.broadcast(SP, kp[p + 1]); a10 = x.fma(b0, a10); a11 = x.fma(b1, a11);
        x = FloatVector.broadcast(SP, kp[p + 2]); a20 = x.fma(b0, a20); a21 = x.fma(b1, a21);
        x = FloatVector.broadcast(SP, kp[p + 3]); a30 = x.fma(b0, a30); a31 = x.fma(b1, a31);
        x = FloatVector.broadcast(SP, kp[p + 4]); a40 = x.fma(b0, a40); a41 = x.fma(b1, a41);
        x = FloatVector.broadcast(SP, kp[p + 5]); a50 = x.fma(b0, a50); a51 = x.fma(b1, a51);
      }
      int o = c * W;
      a00.intoArray(s, o); a01.intoArray(s, o + L); a10.intoArray(s, o + W); a11.intoArray(s, o + W + L);
      a20.intoArray(s, o + 2*W); a21.intoArray(s, o + 2*W + L); a30.intoArray(s, o + 3*W); a31.intoArray(s, o + 3*W + L);
      a40.intoArray(s, o + 4*W); a41.intoArray(s, o + 4*W + L); a50.intoArray(s, o + 5*W); a51.intoArray(s, o + 5*W + L);
    }
  }

  // 4 keys x 3 vectors (24 queries); K packed [t][4]
  static void pk43(int nk, int d, float[] qp, int qpOff, float[] kp, int kOff, int ldk, float[] s) {
    final int W3 = 24;
    for (int c = 0; c + 4 <= nk; c += 4) {
      final int kb = c * d;
      FloatVector a00 = FloatVector.zero(SP), a01 = a00, a02 = a00, a10 = a00, a11 = a00, a12 = a00;
      FloatVector a20 = a00, a21 = a00, a22 = a00, a30 = a00, a31 = a00, a32 = a00;
      for (int t = 0; t < d; t++) {
        final FloatVector b0 = FloatVector.fromArray(SP, qp, qpOff + t * W3);
        final FloatVector b1 = FloatVector.fromArray(SP, qp, qpOff + t * W3 + L);
        final FloatVector b2 = FloatVector.fromArray(SP, qp, qpOff + t * W3 + 2 * L);
        final int p = kb + t * 4;
        FloatVector x = FloatVector.broadcast(SP, kp[p]); a00 = x.fma(b0, a00); a01 = x.fma(b1, a01); a02 = x.fma(b2, a02);
        x = FloatVector.broadcast(SP, kp[p + 1]); a10 = x.fma(b0, a10); a11 = x.fma(b1, a11); a12 = x.fma(b2, a12);
        x = FloatVector.broadcast(SP, kp[p + 2]); a20 = x.fma(b0, a20); a21 = x.fma(b1, a21); a22 = x.fma(b2, a22);
        x = FloatVector.broadcast(SP, kp[p + 3]); a30 = x.fma(b0, a30); a31 = x.fma(b1, a31); a32 = x.fma(b2, a32);
      }
      int o = c * W3;
      a00.intoArray(s, o); a01.intoArray(s, o + L); a02.intoArray(s, o + 2*L);
      a10.intoArray(s, o + W3); a11.intoArray(s, o + W3 + L); a12.intoArray(s, o + W3 + 2*L);
      a20.intoArray(s, o + 2*W3); a21.intoArray(s, o + 2*W3 + L); a22.intoArray(s, o + 2*W3 + 2*L);
      a30.intoArray(s, o + 3*W3); a31.intoArray(s, o + 3*W3 + L); a32.intoArray(s, o + 3*W3 + 2*L);
    }
  }

  interface K { void run(int nk, int d, float[] qp, int qpOff, float[] k, int kOff, int ldk, float[] s); }

  public static void main(String[] a) {
    Random r = new Random(1);
    float[] qp = new float[144 * D]; float[] k = new float[NK * D]; float[] s = new float[144 * NK];
    for (int i = 0; i < qp.length; i++) qp[i] = r.nextFloat();
    for (int i = 0; i < k.length; i++) k[i] = r.nextFloat();
    String[] names = {"cur", "lin", "pk", "pk43"};
    int[] widths = {16, 16, 16, 24};
    K[] ks = {Micro2::cur, Micro2::lin, Micro2::pk, Micro2::pk43};
    int rounds = a.length > 0 ? Integer.parseInt(a[0]) : 12;
    for (int round = 0; round < rounds; round++) {
      StringBuilder sb = new StringBuilder();
      for (int v = 0; v < ks.length; v++) {
        int w = widths[v], nk = NK;
        int strips = 96 / w;
        long reps = 4000;
        long t0 = System.nanoTime();
        for (long i = 0; i < reps; i++)
          for (int st = 0; st < strips; st++) ks[v].run(nk, D, qp, st * w * D, k, 0, D, s);
        long t = System.nanoTime() - t0;
        double flops = 2.0 * 96 * nk * D * reps;
        sb.append(String.format("%s %.1f  ", names[v], flops / t));
      }
      System.out.println(sb);
    }
  }
}

import jdk.incubator.vector.*;
import java.util.*;

public class Micro {
  static final VectorSpecies<Float> SP = FloatVector.SPECIES_256;
  static final int L = 8;
  static final int D = 64, NK = 128;

  // current: 6 keys x 2 vectors, W=16
  static void s6x2(int nk, int d, float[] qp, int qpOff, float[] k, int kOff, int ldk, float[] s) {
    final int W = 16;
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

  // 4 keys x 3 vectors, W=24
  static void s4x3(int nk, int d, float[] qp, int qpOff, float[] k, int kOff, int ldk, float[] s) {
    final int W = 24;
    for (int c = 0; c + 4 <= nk; c += 4) {
      final int k0 = kOff + c * ldk, k1 = k0 + ldk, k2 = k1 + ldk, k3 = k2 + ldk;
      FloatVector a00 = FloatVector.zero(SP), a01 = a00, a02 = a00, a10 = a00, a11 = a00, a12 = a00;
      FloatVector a20 = a00, a21 = a00, a22 = a00, a30 = a00, a31 = a00, a32 = a00;
      for (int t = 0, q = qpOff; t < d; t++, q += W) {
        final FloatVector b0 = FloatVector.fromArray(SP, qp, q);
        final FloatVector b1 = FloatVector.fromArray(SP, qp, q + L);
        final FloatVector b2 = FloatVector.fromArray(SP, qp, q + 2*L);
        FloatVector x = FloatVector.broadcast(SP, k[k0 + t]); a00 = x.fma(b0, a00); a01 = x.fma(b1, a01); a02 = x.fma(b2, a02);
        x = FloatVector.broadcast(SP, k[k1 + t]); a10 = x.fma(b0, a10); a11 = x.fma(b1, a11); a12 = x.fma(b2, a12);
        x = FloatVector.broadcast(SP, k[k2 + t]); a20 = x.fma(b0, a20); a21 = x.fma(b1, a21); a22 = x.fma(b2, a22);
        x = FloatVector.broadcast(SP, k[k3 + t]); a30 = x.fma(b0, a30); a31 = x.fma(b1, a31); a32 = x.fma(b2, a32);
      }
      int o = c * W;
      a00.intoArray(s, o); a01.intoArray(s, o + L); a02.intoArray(s, o + 2*L);
      a10.intoArray(s, o + W); a11.intoArray(s, o + W + L); a12.intoArray(s, o + W + 2*L);
      a20.intoArray(s, o + 2*W); a21.intoArray(s, o + 2*W + L); a22.intoArray(s, o + 2*W + 2*L);
      a30.intoArray(s, o + 3*W); a31.intoArray(s, o + 3*W + L); a32.intoArray(s, o + 3*W + 2*L);
    }
  }

  // 3 keys x 4 vectors, W=32, b loaded per use
  static void s3x4(int nk, int d, float[] qp, int qpOff, float[] k, int kOff, int ldk, float[] s) {
    final int W = 32;
    for (int c = 0; c + 3 <= nk; c += 3) {
      final int k0 = kOff + c * ldk, k1 = k0 + ldk, k2 = k1 + ldk;
      FloatVector a00 = FloatVector.zero(SP), a01 = a00, a02 = a00, a03 = a00, a10 = a00, a11 = a00, a12 = a00, a13 = a00;
      FloatVector a20 = a00, a21 = a00, a22 = a00, a23 = a00;
      for (int t = 0, q = qpOff; t < d; t++, q += W) {
        final FloatVector x0 = FloatVector.broadcast(SP, k[k0 + t]);
        final FloatVector x1 = FloatVector.broadcast(SP, k[k1 + t]);
        final FloatVector x2 = FloatVector.broadcast(SP, k[k2 + t]);
        FloatVector b = FloatVector.fromArray(SP, qp, q); a00 = x0.fma(b, a00); a10 = x1.fma(b, a10); a20 = x2.fma(b, a20);
        b = FloatVector.fromArray(SP, qp, q + L); a01 = x0.fma(b, a01); a11 = x1.fma(b, a11); a21 = x2.fma(b, a21);
        b = FloatVector.fromArray(SP, qp, q + 2*L); a02 = x0.fma(b, a02); a12 = x1.fma(b, a12); a22 = x2.fma(b, a22);
        b = FloatVector.fromArray(SP, qp, q + 3*L); a03 = x0.fma(b, a03); a13 = x1.fma(b, a13); a23 = x2.fma(b, a23);
      }
      int o = c * W;
      a00.intoArray(s, o); a01.intoArray(s, o + L); a02.intoArray(s, o + 2*L); a03.intoArray(s, o + 3*L);
      a10.intoArray(s, o + W); a11.intoArray(s, o + W + L); a12.intoArray(s, o + W + 2*L); a13.intoArray(s, o + W + 3*L);
      a20.intoArray(s, o + 2*W); a21.intoArray(s, o + 2*W + L); a22.intoArray(s, o + 2*W + 2*L); a23.intoArray(s, o + 2*W + 3*L);
    }
  }


  // 6x2 with K interleaved per 6-key block: kp[blk*6*d + t*6 + i]
  static void s6x2p(int nk, int d, float[] qp, int qpOff, float[] k, int kOff, int ldk, float[] s) {
    final int W = 16;
    for (int c = 0; c + 6 <= nk; c += 6) {
      FloatVector a00 = FloatVector.zero(SP), a01 = a00, a10 = a00, a11 = a00, a20 = a00, a21 = a00;
      FloatVector a30 = a00, a31 = a00, a40 = a00, a41 = a00, a50 = a00, a51 = a00;
      for (int t = 0, q = qpOff, p = kOff + c * d; t < d; t++, q += W, p += 6) {
        final FloatVector b0 = FloatVector.fromArray(SP, qp, q);
        final FloatVector b1 = FloatVector.fromArray(SP, qp, q + L);
        FloatVector x = FloatVector.broadcast(SP, k[p]); a00 = x.fma(b0, a00); a01 = x.fma(b1, a01);
        x = FloatVector.broadcast(SP, k[p + 1]); a10 = x.fma(b0, a10); a11 = x.fma(b1, a11);
        x = FloatVector.broadcast(SP, k[p + 2]); a20 = x.fma(b0, a20); a21 = x.fma(b1, a21);
        x = FloatVector.broadcast(SP, k[p + 3]); a30 = x.fma(b0, a30); a31 = x.fma(b1, a31);
        x = FloatVector.broadcast(SP, k[p + 4]); a40 = x.fma(b0, a40); a41 = x.fma(b1, a41);
        x = FloatVector.broadcast(SP, k[p + 5]); a50 = x.fma(b0, a50); a51 = x.fma(b1, a51);
      }
      int o = c * W;
      a00.intoArray(s, o); a01.intoArray(s, o + L); a10.intoArray(s, o + W); a11.intoArray(s, o + W + L);
      a20.intoArray(s, o + 2*W); a21.intoArray(s, o + 2*W + L); a30.intoArray(s, o + 3*W); a31.intoArray(s, o + 3*W + L);
      a40.intoArray(s, o + 4*W); a41.intoArray(s, o + 4*W + L); a50.intoArray(s, o + 5*W); a51.intoArray(s, o + 5*W + L);
    }
  }
  // same, t unrolled by 2 (d even)
  static void s6x2pu(int nk, int d, float[] qp, int qpOff, float[] k, int kOff, int ldk, float[] s) {
    final int W = 16;
    for (int c = 0; c + 6 <= nk; c += 6) {
      FloatVector a00 = FloatVector.zero(SP), a01 = a00, a10 = a00, a11 = a00, a20 = a00, a21 = a00;
      FloatVector a30 = a00, a31 = a00, a40 = a00, a41 = a00, a50 = a00, a51 = a00;
      for (int t = 0, q = qpOff, p = kOff + c * d; t < d; t += 2, q += 2 * W, p += 12) {
        FloatVector b0 = FloatVector.fromArray(SP, qp, q);
        FloatVector b1 = FloatVector.fromArray(SP, qp, q + L);
        FloatVector x = FloatVector.broadcast(SP, k[p]); a00 = x.fma(b0, a00); a01 = x.fma(b1, a01);
        x = FloatVector.broadcast(SP, k[p + 1]); a10 = x.fma(b0, a10); a11 = x.fma(b1, a11);
        x = FloatVector.broadcast(SP, k[p + 2]); a20 = x.fma(b0, a20); a21 = x.fma(b1, a21);
        x = FloatVector.broadcast(SP, k[p + 3]); a30 = x.fma(b0, a30); a31 = x.fma(b1, a31);
        x = FloatVector.broadcast(SP, k[p + 4]); a40 = x.fma(b0, a40); a41 = x.fma(b1, a41);
        x = FloatVector.broadcast(SP, k[p + 5]); a50 = x.fma(b0, a50); a51 = x.fma(b1, a51);
        b0 = FloatVector.fromArray(SP, qp, q + W);
        b1 = FloatVector.fromArray(SP, qp, q + W + L);
        x = FloatVector.broadcast(SP, k[p + 6]); a00 = x.fma(b0, a00); a01 = x.fma(b1, a01);
        x = FloatVector.broadcast(SP, k[p + 7]); a10 = x.fma(b0, a10); a11 = x.fma(b1, a11);
        x = FloatVector.broadcast(SP, k[p + 8]); a20 = x.fma(b0, a20); a21 = x.fma(b1, a21);
        x = FloatVector.broadcast(SP, k[p + 9]); a30 = x.fma(b0, a30); a31 = x.fma(b1, a31);
        x = FloatVector.broadcast(SP, k[p + 10]); a40 = x.fma(b0, a40); a41 = x.fma(b1, a41);
        x = FloatVector.broadcast(SP, k[p + 11]); a50 = x.fma(b0, a50); a51 = x.fma(b1, a51);
      }
      int o = c * W;
      a00.intoArray(s, o); a01.intoArray(s, o + L); a10.intoArray(s, o + W); a11.intoArray(s, o + W + L);
      a20.intoArray(s, o + 2*W); a21.intoArray(s, o + 2*W + L); a30.intoArray(s, o + 3*W); a31.intoArray(s, o + 3*W + L);
      a40.intoArray(s, o + 4*W); a41.intoArray(s, o + 4*W + L); a50.intoArray(s, o + 5*W); a51.intoArray(s, o + 5*W + L);
    }
  }

  interface K { void run(int nk, int d, float[] qp, int qpOff, float[] k, int kOff, int ldk, float[] s); }

  public static void main(String[] a) {
    Random r = new Random(1);
    float[] qp = new float[128 * D]; float[] k = new float[NK * D]; float[] s = new float[128 * NK];
    for (int i = 0; i < qp.length; i++) qp[i] = r.nextFloat();
    for (int i = 0; i < k.length; i++) k[i] = r.nextFloat();
    String[] names = {"6x2", "6x2p", "6x2pu"};
    int[] widths = {16, 16, 16};
    int[] nks = {126, 126, 126};
    K[] ks = {Micro::s6x2, Micro::s6x2p, Micro::s6x2pu};
    for (int round = 0; round < 12; round++) {
      StringBuilder sb = new StringBuilder();
      for (int v = 0; v < ks.length; v++) {
        int W = widths[v], nk = nks[v];
        int strips = 96 / W; // 96 queries = common multiple
        long reps = 4000;
        long t0 = System.nanoTime();
        for (long i = 0; i < reps; i++)
          for (int st = 0; st < strips; st++) ks[v].run(nk, D, qp, st * W * D, k, 0, D, s);
        long t = System.nanoTime() - t0;
        double flops = 2.0 * 96 * nk * D * reps;
        sb.append(String.format("%s %.1f  ", names[v], flops / t));
      }
      System.out.println(sb);
    }
  }
}

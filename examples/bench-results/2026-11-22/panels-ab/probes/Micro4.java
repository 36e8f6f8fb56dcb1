import jdk.incubator.vector.*;
import java.util.*;
public class Micro4 {
  static final VectorSpecies<Float> SP = FloatVector.SPECIES_256;
  static final int L = 8, W = 16, D = 64, NK = 120;
  static void pk6(int nk, int d, float[] qp, int qpOff, float[] kp, float[] s) {
    for (int c = 0; c + 6 <= nk; c += 6) {
      final int kb = (c / 6) * 6 * d;
      FloatVector a00 = FloatVector.zero(SP), a01 = FloatVector.zero(SP), a10 = FloatVector.zero(SP), a11 = FloatVector.zero(SP), a20 = FloatVector.zero(SP), a21 = FloatVector.zero(SP), a30 = FloatVector.zero(SP), a31 = FloatVector.zero(SP), a40 = FloatVector.zero(SP), a41 = FloatVector.zero(SP), a50 = FloatVector.zero(SP), a51 = FloatVector.zero(SP);
      for (int t = 0; t < d; t++) {
        final FloatVector b0 = FloatVector.fromArray(SP, qp, qpOff + t * W), b1 = FloatVector.fromArray(SP, qp, qpOff + t * W + L);
        final int p = kb + t * 6;
        FloatVector x;
        x = FloatVector.broadcast(SP, kp[p + 0]); a00 = x.fma(b0, a00); a01 = x.fma(b1, a01);
        x = FloatVector.broadcast(SP, kp[p + 1]); a10 = x.fma(b0, a10); a11 = x.fma(b1, a11);
        x = FloatVector.broadcast(SP, kp[p + 2]); a20 = x.fma(b0, a20); a21 = x.fma(b1, a21);
        x = FloatVector.broadcast(SP, kp[p + 3]); a30 = x.fma(b0, a30); a31 = x.fma(b1, a31);
        x = FloatVector.broadcast(SP, kp[p + 4]); a40 = x.fma(b0, a40); a41 = x.fma(b1, a41);
        x = FloatVector.broadcast(SP, kp[p + 5]); a50 = x.fma(b0, a50); a51 = x.fma(b1, a51);
      }
      int o = c * W;
      a00.intoArray(s, o + 0*W); a01.intoArray(s, o + 0*W + L);
      a10.intoArray(s, o + 1*W); a11.intoArray(s, o + 1*W + L);
      a20.intoArray(s, o + 2*W); a21.intoArray(s, o + 2*W + L);
      a30.intoArray(s, o + 3*W); a31.intoArray(s, o + 3*W + L);
      a40.intoArray(s, o + 4*W); a41.intoArray(s, o + 4*W + L);
      a50.intoArray(s, o + 5*W); a51.intoArray(s, o + 5*W + L);
    }
  }
  static void pk6s8(int nk, int d, float[] qp, int qpOff, float[] kp, float[] s) {
    for (int c = 0; c + 6 <= nk; c += 6) {
      final int kb = (c / 6) * 8 * d;
      FloatVector a00 = FloatVector.zero(SP), a01 = FloatVector.zero(SP), a10 = FloatVector.zero(SP), a11 = FloatVector.zero(SP), a20 = FloatVector.zero(SP), a21 = FloatVector.zero(SP), a30 = FloatVector.zero(SP), a31 = FloatVector.zero(SP), a40 = FloatVector.zero(SP), a41 = FloatVector.zero(SP), a50 = FloatVector.zero(SP), a51 = FloatVector.zero(SP);
      for (int t = 0; t < d; t++) {
        final FloatVector b0 = FloatVector.fromArray(SP, qp, qpOff + t * W), b1 = FloatVector.fromArray(SP, qp, qpOff + t * W + L);
        final int p = kb + t * 8;
        FloatVector x;
        x = FloatVector.broadcast(SP, kp[p + 0]); a00 = x.fma(b0, a00); a01 = x.fma(b1, a01);
        x = FloatVector.broadcast(SP, kp[p + 1]); a10 = x.fma(b0, a10); a11 = x.fma(b1, a11);
        x = FloatVector.broadcast(SP, kp[p + 2]); a20 = x.fma(b0, a20); a21 = x.fma(b1, a21);
        x = FloatVector.broadcast(SP, kp[p + 3]); a30 = x.fma(b0, a30); a31 = x.fma(b1, a31);
        x = FloatVector.broadcast(SP, kp[p + 4]); a40 = x.fma(b0, a40); a41 = x.fma(b1, a41);
        x = FloatVector.broadcast(SP, kp[p + 5]); a50 = x.fma(b0, a50); a51 = x.fma(b1, a51);
      }
      int o = c * W;
      a00.intoArray(s, o + 0*W); a01.intoArray(s, o + 0*W + L);
      a10.intoArray(s, o + 1*W); a11.intoArray(s, o + 1*W + L);
      a20.intoArray(s, o + 2*W); a21.intoArray(s, o + 2*W + L);
      a30.intoArray(s, o + 3*W); a31.intoArray(s, o + 3*W + L);
      a40.intoArray(s, o + 4*W); a41.intoArray(s, o + 4*W + L);
      a50.intoArray(s, o + 5*W); a51.intoArray(s, o + 5*W + L);
    }
  }
  static void pk4(int nk, int d, float[] qp, int qpOff, float[] kp, float[] s) {
    for (int c = 0; c + 4 <= nk; c += 4) {
      final int kb = (c / 4) * 4 * d;
      FloatVector a00 = FloatVector.zero(SP), a01 = FloatVector.zero(SP), a10 = FloatVector.zero(SP), a11 = FloatVector.zero(SP), a20 = FloatVector.zero(SP), a21 = FloatVector.zero(SP), a30 = FloatVector.zero(SP), a31 = FloatVector.zero(SP);
      for (int t = 0; t < d; t++) {
        final FloatVector b0 = FloatVector.fromArray(SP, qp, qpOff + t * W), b1 = FloatVector.fromArray(SP, qp, qpOff + t * W + L);
        final int p = kb + t * 4;
        FloatVector x;
        x = FloatVector.broadcast(SP, kp[p + 0]); a00 = x.fma(b0, a00); a01 = x.fma(b1, a01);
        x = FloatVector.broadcast(SP, kp[p + 1]); a10 = x.fma(b0, a10); a11 = x.fma(b1, a11);
        x = FloatVector.broadcast(SP, kp[p + 2]); a20 = x.fma(b0, a20); a21 = x.fma(b1, a21);
        x = FloatVector.broadcast(SP, kp[p + 3]); a30 = x.fma(b0, a30); a31 = x.fma(b1, a31);
      }
      int o = c * W;
      a00.intoArray(s, o + 0*W); a01.intoArray(s, o + 0*W + L);
      a10.intoArray(s, o + 1*W); a11.intoArray(s, o + 1*W + L);
      a20.intoArray(s, o + 2*W); a21.intoArray(s, o + 2*W + L);
      a30.intoArray(s, o + 3*W); a31.intoArray(s, o + 3*W + L);
    }
  }
  static void pk5s8(int nk, int d, float[] qp, int qpOff, float[] kp, float[] s) {
    for (int c = 0; c + 5 <= nk; c += 5) {
      final int kb = (c / 5) * 8 * d;
      FloatVector a00 = FloatVector.zero(SP), a01 = FloatVector.zero(SP), a10 = FloatVector.zero(SP), a11 = FloatVector.zero(SP), a20 = FloatVector.zero(SP), a21 = FloatVector.zero(SP), a30 = FloatVector.zero(SP), a31 = FloatVector.zero(SP), a40 = FloatVector.zero(SP), a41 = FloatVector.zero(SP);
      for (int t = 0; t < d; t++) {
        final FloatVector b0 = FloatVector.fromArray(SP, qp, qpOff + t * W), b1 = FloatVector.fromArray(SP, qp, qpOff + t * W + L);
        final int p = kb + t * 8;
        FloatVector x;
        x = FloatVector.broadcast(SP, kp[p + 0]); a00 = x.fma(b0, a00); a01 = x.fma(b1, a01);
        x = FloatVector.broadcast(SP, kp[p + 1]); a10 = x.fma(b0, a10); a11 = x.fma(b1, a11);
        x = FloatVector.broadcast(SP, kp[p + 2]); a20 = x.fma(b0, a20); a21 = x.fma(b1, a21);
        x = FloatVector.broadcast(SP, kp[p + 3]); a30 = x.fma(b0, a30); a31 = x.fma(b1, a31);
        x = FloatVector.broadcast(SP, kp[p + 4]); a40 = x.fma(b0, a40); a41 = x.fma(b1, a41);
      }
      int o = c * W;
      a00.intoArray(s, o + 0*W); a01.intoArray(s, o + 0*W + L);
      a10.intoArray(s, o + 1*W); a11.intoArray(s, o + 1*W + L);
      a20.intoArray(s, o + 2*W); a21.intoArray(s, o + 2*W + L);
      a30.intoArray(s, o + 3*W); a31.intoArray(s, o + 3*W + L);
      a40.intoArray(s, o + 4*W); a41.intoArray(s, o + 4*W + L);
    }
  }
  interface K { void run(int nk, int d, float[] qp, int qpOff, float[] k, float[] s); }
  public static void main(String[] a) {
    Random r = new Random(1);
    float[] qp = new float[96 * D]; float[] k = new float[NK * D * 2]; float[] s = new float[96 * NK];
    for (int i = 0; i < qp.length; i++) qp[i] = r.nextFloat();
    for (int i = 0; i < k.length; i++) k[i] = r.nextFloat();
    String[] names = {"pk6","pk6s8","pk4","pk5s8"};
    K[] ks = {Micro4::pk6,Micro4::pk6s8,Micro4::pk4,Micro4::pk5s8};
    int rounds = a.length > 0 ? Integer.parseInt(a[0]) : 12;
    for (int round = 0; round < rounds; round++) {
      StringBuilder sb = new StringBuilder();
      for (int v = 0; v < ks.length; v++) {
        long reps = 3000, t0 = System.nanoTime();
        for (long i = 0; i < reps; i++) for (int st = 0; st < 6; st++) ks[v].run(NK, D, qp, st * W * D, k, s);
        long t = System.nanoTime() - t0;
        sb.append(String.format("%s %.1f  ", names[v], 2.0 * 96 * NK * D * reps / t));
      }
      System.out.println(sb);
    }
  }
}

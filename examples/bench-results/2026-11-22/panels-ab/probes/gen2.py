hdr='''import jdk.incubator.vector.*;
import java.util.*;
public class Micro4 {
  static final VectorSpecies<Float> SP = FloatVector.SPECIES_256;
  static final int L = 8, W = 16, D = 64, NK = 120;
'''
def kern(name, nkeys, stride, loop_style='t'):
    acc='      FloatVector ' + ', '.join(f'a{i}{j} = FloatVector.zero(SP)' for i in range(nkeys) for j in range(2)) + ';\n'
    body=f'''        final FloatVector b0 = FloatVector.fromArray(SP, qp, qpOff + t * W), b1 = FloatVector.fromArray(SP, qp, qpOff + t * W + L);
        final int p = kb + t * {stride};
        FloatVector x;
'''
    for i in range(nkeys):
        body+=f'        x = FloatVector.broadcast(SP, kp[p + {i}]); a{i}0 = x.fma(b0, a{i}0); a{i}1 = x.fma(b1, a{i}1);\n'
    store='      int o = c * W;\n'+''.join(f'      a{i}0.intoArray(s, o + {i}*W); a{i}1.intoArray(s, o + {i}*W + L);\n' for i in range(nkeys))
    return f'''  static void {name}(int nk, int d, float[] qp, int qpOff, float[] kp, float[] s) {{
    for (int c = 0; c + {nkeys} <= nk; c += {nkeys}) {{
      final int kb = (c / {nkeys}) * {stride} * d;
{acc}      for (int t = 0; t < d; t++) {{
{body}      }}
{store}    }}
  }}
'''
V=[('pk6',6,6),('pk6s8',6,8),('pk4',4,4),('pk5s8',5,8)]
out=hdr+''.join(kern(*v) for v in V)
names=[v[0] for v in V]
out+='''  interface K { void run(int nk, int d, float[] qp, int qpOff, float[] k, float[] s); }
  public static void main(String[] a) {
    Random r = new Random(1);
    float[] qp = new float[96 * D]; float[] k = new float[NK * D * 2]; float[] s = new float[96 * NK];
    for (int i = 0; i < qp.length; i++) qp[i] = r.nextFloat();
    for (int i = 0; i < k.length; i++) k[i] = r.nextFloat();
    String[] names = {%s};
    K[] ks = {%s};
    int rounds = a.length > 0 ? Integer.parseInt(a[0]) : 12;
    for (int round = 0; round < rounds; round++) {
      StringBuilder sb = new StringBuilder();
      for (int v = 0; v < ks.length; v++) {
        long reps = 3000, t0 = System.nanoTime();
        for (long i = 0; i < reps; i++) for (int st = 0; st < 6; st++) ks[v].run(NK, D, qp, st * W * D, k, s);
        long t = System.nanoTime() - t0;
        sb.append(String.format("%%s %%.1f  ", names[v], 2.0 * 96 * NK * D * reps / t));
      }
      System.out.println(sb);
    }
  }
}
''' % (','.join('"%s"'%n for n in names), ','.join('Micro4::'+n for n in names))
open('Micro4.java','w').write(out)

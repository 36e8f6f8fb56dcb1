import java.util.*;
import jdk.incubator.vector.*;
public class Fin2 {
    static final VectorSpecies<Integer> I = IntVector.SPECIES_256;
    static boolean branchy(float[] a,int off,int n){ for(int i=off;i<off+n;i++) if(!Float.isFinite(a[i])) return false; return true; }
    static boolean bits(float[] a,int off,int n){ int acc=0; for(int i=off;i<off+n;i++){ acc|=(Float.floatToRawIntBits(a[i])&0x7f800000)+0x00800000;} return acc>=0;}
    static final VectorSpecies<Float> F = FloatVector.SPECIES_256;
    static boolean vec(float[] a,int off,int n){
        IntVector acc = IntVector.zero(I); int i=off, end=off+n;
        for(; i + 8 <= end; i += 8){
            IntVector b = FloatVector.fromArray(F,a,i).reinterpretAsInts();
            acc = acc.or(b.and(0x7f800000).add(0x00800000));
        }
        int r = acc.reduceLanes(VectorOperators.OR);
        for(; i<end; i++) r |= (Float.floatToRawIntBits(a[i])&0x7f800000)+0x00800000;
        return r>=0;
    }
    static boolean vec2(float[] a,int off,int n){
        IntVector acc = IntVector.zero(I), acc2=IntVector.zero(I); int i=off, end=off+n;
        for(; i + 16 <= end; i += 16){
            IntVector b = FloatVector.fromArray(F,a,i).reinterpretAsInts();
            IntVector c = FloatVector.fromArray(F,a,i+8).reinterpretAsInts();
            acc = acc.or(b.and(0x7f800000).add(0x00800000));
            acc2 = acc2.or(c.and(0x7f800000).add(0x00800000));
        }
        int r = acc.or(acc2).reduceLanes(VectorOperators.OR);
        for(; i<end; i++) r |= (Float.floatToRawIntBits(a[i])&0x7f800000)+0x00800000;
        return r>=0;
    }
    public static void main(String[] x){
        int row=Integer.getInteger("row",1024);
        float[] a=new float[Integer.getInteger("n",512*1024)]; Random r=new Random(1); for(int i=0;i<a.length;i++) a[i]=(float)r.nextGaussian();
        String[] n={"branchy","bits","vec","vec2"};
        List<List<Long>> t=new ArrayList<>(); for(int k=0;k<4;k++) t.add(new ArrayList<>());
        boolean ok=true;
        for(int round=0;round<60;round++) for(int k=0;k<4;k++){ long t0=System.nanoTime(); boolean b=true;
          for(int c=0;c<20;c++){ for(int o=0;o<a.length;o+=row){ b &= k==0?branchy(a,o,row):k==1?bits(a,o,row):k==2?vec(a,o,row):vec2(a,o,row);} }
          ok&=b; if(round>=20) t.get(k).add((System.nanoTime()-t0)/20);} 
        for(int k=0;k<4;k++){ List<Long> v=t.get(k); Collections.sort(v); System.out.println(n[k]+" "+v.get(v.size()/2)/1000+" us per "+a.length+" floats, rows of "+row); }
        a[12345]=Float.POSITIVE_INFINITY; System.out.println(ok+" "+branchy(a,0,a.length)+bits(a,0,a.length)+vec(a,0,a.length)+vec2(a,0,a.length)); a[12345]=Float.NaN; System.out.println(branchy(a,0,a.length)+""+bits(a,0,a.length)+vec(a,0,a.length)+vec2(a,0,a.length));
        a[12345]=-Float.MAX_VALUE; a[7]=Float.NEGATIVE_INFINITY; System.out.println(branchy(a,0,a.length)+""+bits(a,0,a.length)+vec(a,0,a.length)+vec2(a,0,a.length));
    }
}

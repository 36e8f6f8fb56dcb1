import java.util.*;
public class Fin {
    static boolean branchy(float[] a){ for(int i=0;i<a.length;i++) if(!Float.isFinite(a[i])) return false; return true; }
    static boolean mulzero(float[] a){ float s0=0,s1=0,s2=0,s3=0; int i=0; for(;i+4<=a.length;i+=4){s0+=a[i]*0f;s1+=a[i+1]*0f;s2+=a[i+2]*0f;s3+=a[i+3]*0f;} for(;i<a.length;i++) s0+=a[i]*0f; return !Float.isNaN(s0+s1+s2+s3);}
    static boolean bits(float[] a){ int acc=0; for(int i=0;i<a.length;i++){ acc|=(Float.floatToRawIntBits(a[i])&0x7f800000)+0x00800000;} return acc>=0;}
    static boolean sub(float[] a){ float[] t=a; float m=0; for(int i=0;i<a.length;i++){ m = Math.max(m, Math.abs(a[i]));} return m<=Float.MAX_VALUE;}
    public static void main(String[] x){
        float[] a=new float[Integer.getInteger("n",512*1024)]; Random r=new Random(1); for(int i=0;i<a.length;i++) a[i]=(float)r.nextGaussian();
        String[] n={"branchy","mulzero","bits","absmax"};
        List<List<Long>> t=new ArrayList<>(); for(int k=0;k<4;k++) t.add(new ArrayList<>());
        boolean ok=true;
        for(int round=0;round<40;round++) for(int k=0;k<4;k++){ long t0=System.nanoTime(); boolean b=false; for(int c=0;c<20;c++){ b = k==0?branchy(a):k==1?mulzero(a):k==2?bits(a):sub(a);} ok&=b; if(round>=10) t.get(k).add((System.nanoTime()-t0)/20);} 
        for(int k=0;k<4;k++){ List<Long> v=t.get(k); Collections.sort(v); System.out.println(n[k]+" "+v.get(v.size()/2)/1000+" us per 512K floats"); }
        a[12345]=Float.POSITIVE_INFINITY; System.out.println(ok+" "+branchy(a)+mulzero(a)+bits(a)+sub(a)); a[12345]=Float.NaN; System.out.println(branchy(a)+""+mulzero(a)+bits(a)+sub(a));
    }
}

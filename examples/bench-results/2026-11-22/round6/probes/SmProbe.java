import java.util.*;
public class SmProbe {
    interface U { void run(int w,int nk,float[] s,float[] m,float[] l,float[] a,float[] acc,int ldacc); }
    public static void main(String[] x) {

        int lanes=Integer.parseInt(x[0]), w=Integer.parseInt(x[2]), nk=128, dv=64, calls=Integer.parseInt(x[1]);
        Random rnd=new Random(1); OldSm.LANES=lanes; NewSm.LANES=lanes;
        float[] src=new float[w*nk]; for(int i=0;i<src.length;i++) src[i]=(float)rnd.nextGaussian()*3;
        float[] s=new float[w*nk], m=new float[w], l=new float[w], a=new float[w], acc=new float[dv*w];
        U[] us={ (ww,n,ss,mm,ll,aa,ac,ld)->OldSm.update(ww,n,ss,mm,ll,aa,0,ac,0,ld,dv), (ww,n,ss,mm,ll,aa,ac,ld)->NewSm.update(ww,n,ss,mm,ll,aa,0,ac,0,ld,dv)};
        String[] names={"old","new"};
        // check identical
        float[][] outs=new float[2][];
        for(int u=0;u<2;u++){ System.arraycopy(src,0,s,0,s.length); Arrays.fill(m,Float.NEGATIVE_INFINITY); Arrays.fill(l,0); Arrays.fill(acc,1f);
            us[u].run(w,nk,s,m,l,a,acc,w); outs[u]=s.clone(); }
        System.out.println("identical: "+Arrays.equals(outs[0],outs[1]));
        List<List<Double>> t=new ArrayList<>(); t.add(new ArrayList<>()); t.add(new ArrayList<>());
        for(int round=0;round<30;round++) for(int u=0;u<2;u++){
            long t0=System.nanoTime();
            for(int c=0;c<calls;c++){ System.arraycopy(src,0,s,0,s.length); Arrays.fill(m,0,w,(float)(c%3)); us[u].run(w,nk,s,m,l,a,acc,w);}
            double ns=(System.nanoTime()-t0)/(double)calls; if(round>=5) t.get(u).add(ns);
        }
        for(int u=0;u<2;u++){ List<Double> v=t.get(u); Collections.sort(v); System.out.printf("%s w=%d: median %.0f ns/tile (min %.0f)%n",names[u],w,v.get(v.size()/2),v.get(0)); }
    }
}

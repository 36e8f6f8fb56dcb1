/* Round 8 probe: the score and P·V products of one 256-query tile in every transposition,
 * through the system libblas.so.3, one thread, medians of 31 rounds (GFLOP/s).
 *   gcc -O2 gemm_products.c -o gp /usr/lib/x86_64-linux-gnu/libblas.so.3
 *   OPENBLAS_NUM_THREADS=1 OPENBLAS_CORETYPE=Haswell ./gp W NK LD
 * W queries, NK keys, d = 64; LD floats between K and V rows (64 packed, 1024 as in the kernel). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
void sgemm_(const char*,const char*,int*,int*,int*,float*,float*,int*,float*,int*,float*,float*,int*);
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(int argc,char**argv){
  int W=atoi(argv[1]), NK=atoi(argv[2]), d=64; float one=1,zero=0;
  int LD=atoi(argv[3]); float *q=aligned_alloc(64,4*512*64),*k=aligned_alloc(64,4*512*LD),*s=aligned_alloc(64,4*512*512),*v=aligned_alloc(64,4*512*LD),*acc=aligned_alloc(64,4*512*64);
  for(int i=0;i<512*64;i++){q[i]=rand()/(float)RAND_MAX-0.5f;acc[i]=0;} for(long i=0;i<512L*LD;i++){k[i]=rand()/(float)RAND_MAX-0.5f;v[i]=k[i];}
  for(int i=0;i<512*512;i++)s[i]=0.01f;
  const char* names[]={"S TN (now)","S NN (Qᵀ packed)","Sᵀ TN (query-major)","PV NT (now)","PV TT (query-major P)", "PV NN (Vᵀ packed)"};
  enum{NV=6,R=31}; double t[NV][R];
  int it=(int)(3e8/(2.0*W*NK*d))+1;
  for(int r=0;r<R;r++) for(int x=0;x<NV;x++){ double t0=now();
    for(int i=0;i<it;i++) switch(x){
      case 0: sgemm_("T","N",&W,&NK,&d,&one,q,&d,k,&LD,&zero,s,&W); break;
      case 1: sgemm_("N","N",&W,&NK,&d,&one,q,&W,k,&LD,&zero,s,&W); break;
      case 2: sgemm_("T","N",&NK,&W,&d,&one,k,&d,q,&d,&zero,s,&NK); break;
      case 3: sgemm_("N","T",&W,&d,&NK,&one,s,&W,v,&LD,&one,acc,&W); break;
      case 4: sgemm_("T","T",&W,&d,&NK,&one,s,&NK,v,&LD,&one,acc,&W); break;
      case 5: sgemm_("N","N",&W,&d,&NK,&one,s,&W,v,&NK,&one,acc,&W); break;}
    t[x][r]=now()-t0; }
  for(int x=0;x<NV;x++){qsort(t[x],R,sizeof(double),cmp); printf("w=%d nk=%d %-24s %.1f GFLOP/s\n",W,NK,names[x],2.0*W*NK*d*it/t[x][R/2]/1e9);}
}

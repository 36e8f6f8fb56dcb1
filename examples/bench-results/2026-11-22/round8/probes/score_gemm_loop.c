/* Round 8 probe: 20 000 score products (256x256x64, T,N, beta 0, K rows 1024 floats apart) for perf:
 *   gcc -O2 score_gemm_loop.c -o s /usr/lib/x86_64-linux-gnu/libblas.so.3
 *   OPENBLAS_NUM_THREADS=1 OPENBLAS_CORETYPE=Zen perf record -e cpu-clock ./s */
#include <stdio.h>
#include <stdlib.h>
void sgemm_(const char*,const char*,int*,int*,int*,float*,float*,int*,float*,int*,float*,float*,int*);
int main(){int W=256,NK=256,d=64,LD=1024; float one=1,zero=0; float*q=malloc(4*256*64),*k=malloc(4L*512*LD),*s=malloc(4*256*256);
for(int i=0;i<256*64;i++)q[i]=0.01f*(i%7); for(long i=0;i<512L*LD;i++)k[i]=0.01f*(i%5);
for(int i=0;i<20000;i++) sgemm_("T","N",&W,&NK,&d,&one,q,&d,k,&LD,&zero,s,&W); printf("%f\n",s[5]);}

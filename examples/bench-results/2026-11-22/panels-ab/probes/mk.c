#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#define D 64
#define NK 126
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
// qp: [t][16] per strip ; k rows of D ; s[c*16+r]
static void s6x2(int nk,int d,const float*qp,const float*k,int ldk,float*s){
  for(int c=0;c+6<=nk;c+=6){
    __m256 a00=_mm256_setzero_ps(),a01=a00,a10=a00,a11=a00,a20=a00,a21=a00,a30=a00,a31=a00,a40=a00,a41=a00,a50=a00,a51=a00;
    const float*k0=k+c*ldk;
    for(int t=0;t<d;t++){
      __m256 b0=_mm256_loadu_ps(qp+t*16),b1=_mm256_loadu_ps(qp+t*16+8),x;
      x=_mm256_broadcast_ss(k0+t);a00=_mm256_fmadd_ps(x,b0,a00);a01=_mm256_fmadd_ps(x,b1,a01);
      x=_mm256_broadcast_ss(k0+ldk+t);a10=_mm256_fmadd_ps(x,b0,a10);a11=_mm256_fmadd_ps(x,b1,a11);
      x=_mm256_broadcast_ss(k0+2*ldk+t);a20=_mm256_fmadd_ps(x,b0,a20);a21=_mm256_fmadd_ps(x,b1,a21);
      x=_mm256_broadcast_ss(k0+3*ldk+t);a30=_mm256_fmadd_ps(x,b0,a30);a31=_mm256_fmadd_ps(x,b1,a31);
      x=_mm256_broadcast_ss(k0+4*ldk+t);a40=_mm256_fmadd_ps(x,b0,a40);a41=_mm256_fmadd_ps(x,b1,a41);
      x=_mm256_broadcast_ss(k0+5*ldk+t);a50=_mm256_fmadd_ps(x,b0,a50);a51=_mm256_fmadd_ps(x,b1,a51);
    }
    float*o=s+c*16;
    _mm256_storeu_ps(o,a00);_mm256_storeu_ps(o+8,a01);_mm256_storeu_ps(o+16,a10);_mm256_storeu_ps(o+24,a11);
    _mm256_storeu_ps(o+32,a20);_mm256_storeu_ps(o+40,a21);_mm256_storeu_ps(o+48,a30);_mm256_storeu_ps(o+56,a31);
    _mm256_storeu_ps(o+64,a40);_mm256_storeu_ps(o+72,a41);_mm256_storeu_ps(o+80,a50);_mm256_storeu_ps(o+88,a51);
  }
}
int main(){
  float*qp=aligned_alloc(64,128*D*4),*k=aligned_alloc(64,NK*D*4+4096),*s=aligned_alloc(64,128*NK*4);
  for(int i=0;i<128*D;i++)qp[i]=rand()/(float)RAND_MAX;
  for(int i=0;i<NK*D;i++)k[i]=rand()/(float)RAND_MAX;
  for(int round=0;round<6;round++){
    long reps=4000;double t0=now();
    for(long i=0;i<reps;i++)for(int st=0;st<6;st++)s6x2(NK,D,qp+st*16*D,k,D,s);
    double t=now()-t0;printf("C 6x2 %.1f\n",2.0*96*NK*D*reps/t/1e9);
  }
}

#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#define D 64
#define NK 126
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
#define FM(i) a##i##0=_mm256_fmadd_ps(x,b0,a##i##0);a##i##1=_mm256_fmadd_ps(x,b1,a##i##1);
__attribute__((noinline)) static void bc(int nk,const float*qp,const float*kp,float*s){ // packed K [t][6]
  for(int c=0;c+6<=nk;c+=6){
    __m256 a00=_mm256_setzero_ps(),a01=a00,a10=a00,a11=a00,a20=a00,a21=a00,a30=a00,a31=a00,a40=a00,a41=a00,a50=a00,a51=a00,x;
    const float*k0=kp+c*D;
    for(int t=0;t<D;t++){
      __m256 b0=_mm256_loadu_ps(qp+t*16),b1=_mm256_loadu_ps(qp+t*16+8);
      x=_mm256_broadcast_ss(k0+6*t);FM(0) x=_mm256_broadcast_ss(k0+6*t+1);FM(1) x=_mm256_broadcast_ss(k0+6*t+2);FM(2)
      x=_mm256_broadcast_ss(k0+6*t+3);FM(3) x=_mm256_broadcast_ss(k0+6*t+4);FM(4) x=_mm256_broadcast_ss(k0+6*t+5);FM(5)
    }
    float*o=s+c*16;
    _mm256_storeu_ps(o,a00);_mm256_storeu_ps(o+8,a01);_mm256_storeu_ps(o+16,a10);_mm256_storeu_ps(o+24,a11);
    _mm256_storeu_ps(o+32,a20);_mm256_storeu_ps(o+40,a21);_mm256_storeu_ps(o+48,a30);_mm256_storeu_ps(o+56,a31);
    _mm256_storeu_ps(o+64,a40);_mm256_storeu_ps(o+72,a41);_mm256_storeu_ps(o+80,a50);_mm256_storeu_ps(o+88,a51);
  }
}
__attribute__((noinline)) static void vec(int nk,const float*qp,const float*kb,float*s){ // K pre-broadcast: [t][6][8]
  for(int c=0;c+6<=nk;c+=6){
    __m256 a00=_mm256_setzero_ps(),a01=a00,a10=a00,a11=a00,a20=a00,a21=a00,a30=a00,a31=a00,a40=a00,a41=a00,a50=a00,a51=a00,x;
    const float*k0=kb+(c/6)*D*48;
    for(int t=0;t<D;t++){
      __m256 b0=_mm256_loadu_ps(qp+t*16),b1=_mm256_loadu_ps(qp+t*16+8);
      x=_mm256_loadu_ps(k0+48*t);FM(0) x=_mm256_loadu_ps(k0+48*t+8);FM(1) x=_mm256_loadu_ps(k0+48*t+16);FM(2)
      x=_mm256_loadu_ps(k0+48*t+24);FM(3) x=_mm256_loadu_ps(k0+48*t+32);FM(4) x=_mm256_loadu_ps(k0+48*t+40);FM(5)
    }
    float*o=s+c*16;
    _mm256_storeu_ps(o,a00);_mm256_storeu_ps(o+8,a01);_mm256_storeu_ps(o+16,a10);_mm256_storeu_ps(o+24,a11);
    _mm256_storeu_ps(o+32,a20);_mm256_storeu_ps(o+40,a21);_mm256_storeu_ps(o+48,a30);_mm256_storeu_ps(o+56,a31);
    _mm256_storeu_ps(o+64,a40);_mm256_storeu_ps(o+72,a41);_mm256_storeu_ps(o+80,a50);_mm256_storeu_ps(o+88,a51);
  }
}
__attribute__((noinline)) static void reg(int nk,const float*qp,const float*kp,float*s){ // no loads of K at all (upper bound)
  for(int c=0;c+6<=nk;c+=6){
    __m256 a00=_mm256_setzero_ps(),a01=a00,a10=a00,a11=a00,a20=a00,a21=a00,a30=a00,a31=a00,a40=a00,a41=a00,a50=a00,a51=a00,x;
    __m256 y=_mm256_set1_ps(kp[c]);
    for(int t=0;t<D;t++){
      __m256 b0=_mm256_loadu_ps(qp+t*16),b1=_mm256_loadu_ps(qp+t*16+8);
      x=y;FM(0) FM(1) FM(2) FM(3) FM(4) FM(5)
    }
    float*o=s+c*16;
    _mm256_storeu_ps(o,a00);_mm256_storeu_ps(o+8,a01);_mm256_storeu_ps(o+16,a10);_mm256_storeu_ps(o+24,a11);
    _mm256_storeu_ps(o+32,a20);_mm256_storeu_ps(o+40,a21);_mm256_storeu_ps(o+48,a30);_mm256_storeu_ps(o+56,a31);
    _mm256_storeu_ps(o+64,a40);_mm256_storeu_ps(o+72,a41);_mm256_storeu_ps(o+80,a50);_mm256_storeu_ps(o+88,a51);
  }
}
int main(){
  float*qp=aligned_alloc(64,128*D*4),*k=aligned_alloc(64,NK*D*4*8+4096),*s=aligned_alloc(64,128*NK*4);
  for(int i=0;i<128*D;i++)qp[i]=rand()/(float)RAND_MAX;
  for(int i=0;i<NK*D*8;i++)k[i]=rand()/(float)RAND_MAX;
  for(int round=0;round<5;round++){
    long reps=3000;double t0=now(),t1,t2,t3;
    for(long i=0;i<reps;i++)for(int st=0;st<6;st++)bc(NK,qp+st*16*D,k,s);
    t1=now();
    for(long i=0;i<reps;i++)for(int st=0;st<6;st++)vec(NK,qp+st*16*D,k,s);
    t2=now();
    for(long i=0;i<reps;i++)for(int st=0;st<6;st++)reg(NK,qp+st*16*D,k,s);
    t3=now();double f=2.0*96*NK*D*reps/1e9;
    printf("bc %.1f vec %.1f reg %.1f\n",f/(t1-t0),f/(t2-t1),f/(t3-t2));
  }
}

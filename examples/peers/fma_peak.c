/*
 * The machine's fp32 FMA peak, as quoted in BENCHMARKS.md: 12 independent 256-bit FMA chains per
 * thread (enough to cover the FMA latency on two pipes), no memory traffic. GFLOP/s = 2 flops per
 * lane per FMA. AVX2 + FMA only, so the same figure on AVX-512 machines is half their peak.
 *
 *   gcc -O2 -mavx2 -mfma -fopenmp examples/peers/fma_peak.c -o /tmp/fma_peak
 *   OMP_NUM_THREADS=1 /tmp/fma_peak; OMP_NUM_THREADS=2 /tmp/fma_peak
 */
#include <immintrin.h>
#include <stdio.h>
#include <time.h>
#include <omp.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(){
  long iters=400000000L;
  double best=0;
  for(int rep=0;rep<5;rep++){
  double t0=now();
  double total=0;
  #pragma omp parallel reduction(+:total)
  {
    __m256 a[12]; __m256 b=_mm256_set1_ps(0.9999f), c=_mm256_set1_ps(0.0001f);
    for(int i=0;i<12;i++) a[i]=_mm256_set1_ps(i);
    for(long it=0;it<iters/omp_get_num_threads();it++){
      #pragma GCC unroll 12
      for(int i=0;i<12;i++) a[i]=_mm256_fmadd_ps(a[i],b,c);
    }
    float s=0; for(int i=0;i<12;i++){float x[8];_mm256_storeu_ps(x,a[i]);s+=x[0];}
    total+=s;
  }
  double t=now()-t0;
  double fl=(double)iters*12*8*2;
  if(fl/t/1e9>best)best=fl/t/1e9;
  printf("%.1f GFLOP/s (%g)\n",fl/t/1e9,total);
  }
  printf("best %.1f\n",best);
}

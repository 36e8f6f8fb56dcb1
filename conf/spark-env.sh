#!/usr/bin/env bash
# Environment for spark-attention's launcher (examples/bin/spark-attention), the standalone
# cluster scripts (examples/cluster/) and Spark's own sbin/ scripts. Sourced, never executed.
# Every setting keeps a value the caller already exported.

# Everything binds to loopback unless told otherwise.
export SPARK_LOCAL_IP="${SPARK_LOCAL_IP:-127.0.0.1}"

# Spark supplies the parallelism (one task per core, and the kernel's own --threads); a BLAS that
# starts its own threads inside every task oversubscribes the cores.
export OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}"

# OpenBLAS core type (Debian's 0.3.21 picks its kernels at load time):
# - AVX-512: it does not know recent Intel cores and falls back to its Prescott kernels (measured
#   32 GFLOP/s instead of 150 per core with SkylakeX).
# - AVX2 without AVX-512 (Intel Haswell..., AMD Zen 1-3): its ZEN target has the same sgemm
#   kernel as HASWELL but clears C for beta = 0 with a slow loop, 15% of a 256×256×64 score
#   product against 4% for HASWELL's memset (perf); every score tile is
#   such a product. On Intel AVX2 cores OpenBLAS picks HASWELL anyway.
if [ -z "${OPENBLAS_CORETYPE:-}" ]; then
  if grep -qw avx512f /proc/cpuinfo 2>/dev/null; then
    export OPENBLAS_CORETYPE=SkylakeX
  elif grep -qw avx2 /proc/cpuinfo 2>/dev/null && grep -qw fma /proc/cpuinfo 2>/dev/null; then
    export OPENBLAS_CORETYPE=Haswell
  fi
fi

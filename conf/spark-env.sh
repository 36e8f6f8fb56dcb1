#!/usr/bin/env bash
# Environment for spark-attention's launcher (examples/bin/spark-attention), the standalone
# cluster scripts (examples/cluster/) and Spark's own sbin/ scripts. Sourced, never executed.
# Every setting keeps a value the caller already exported.

# Everything binds to loopback unless told otherwise.
export SPARK_LOCAL_IP="${SPARK_LOCAL_IP:-127.0.0.1}"

# Spark supplies the parallelism (one task per core, and the kernel's own --threads); a BLAS that
# starts its own threads inside every task oversubscribes the cores.
export OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}"

# Debian's OpenBLAS 0.3.21 does not know recent AVX-512 Intel cores and falls back to its
# Prescott kernels (measured 32 GFLOP/s instead of 150 per core with SkylakeX). It detects AVX2
# cores (Haswell..., AMD Zen) correctly, so only AVX-512 machines get the override.
if [ -z "${OPENBLAS_CORETYPE:-}" ] && grep -qw avx512f /proc/cpuinfo 2>/dev/null; then
  export OPENBLAS_CORETYPE=SkylakeX
fi

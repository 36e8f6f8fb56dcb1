package io.sparkattention.examples.bench.torch;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.core.Linear;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Binds libtorch's BLAS calls to its own MKL before any other BLAS can take them.
 *
 * <p>libtorch_cpu.so exports the Fortran BLAS symbols it carries ({@code sgemm_}, {@code sgemv_},
 * {@code dgemm_}, …, MKL's) and calls them through its PLT, which the dynamic linker fills on the
 * first call by searching the process's global scope before the library's own. The command line's
 * netlib BLAS opens the system's {@code libblas.so.3} (OpenBLAS) into that global scope; once it
 * has, a first {@code sgemm_} from libtorch lands in OpenBLAS — single-threaded under
 * {@code OPENBLAS_NUM_THREADS=1}, on its AVX2 kernels — and every {@code nn.Linear} of the peer
 * runs there for the rest of the JVM (measured: 1,489 tokens/s for the MiniLM forward, 32 GFLOP/s
 * on 2 threads, where MKL's own path is several times faster). Running one product of each kind
 * as the engine starts fills those PLT slots with MKL's entries while no other BLAS is loaded.
 */
final class BlasBinding {

    /** /proc/self/maps: which shared objects the process has mapped. */
    private static final Path MAPS = Path.of("/proc/self/maps");

    private BlasBinding() {
    }

    /**
     * Runs a matrix product and a matrix-vector product in float32 and float64 (binding
     * {@code sgemm_}, {@code sgemv_}, {@code dgemm_}, {@code dgemv_}) and reports which BLAS they
     * took: {@code "mkl"} when no other BLAS was mapped in the process, else
     * {@code "openblas-first"} (the other BLAS was loaded before the peer: its products may run
     * there, and the figures say so), {@code "unknown"} when the process's maps cannot be read.
     */
    static String bind(NDManager manager) {
        String before = mappedBlas();
        try (NDManager scratch = manager.newSubManager()) {
            for (DataType type : new DataType[] {DataType.FLOAT32, DataType.FLOAT64}) {
                NDArray x = scratch.ones(new Shape(4, 8), type);
                NDArray w = scratch.ones(new Shape(8, 8), type);
                // [4, 8]·[8, 8]ᵀ + b: gemm; [8, 8]·[8]: gemv
                Linear.linear(x, w, scratch.zeros(new Shape(8), type));
                w.matMul(scratch.ones(new Shape(8), type));
            }
        }
        return before;
    }

    /** "mkl" when no BLAS but libtorch's (OpenBLAS, the reference libblas) is mapped now, else as {@link #bind}. */
    private static String mappedBlas() {
        try {
            String maps = Files.readString(MAPS, StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT);
            return maps.contains("libopenblas") || maps.contains("libblas.so") ? "openblas-first" : "mkl";
        } catch (IOException e) {
            return "unknown";
        }
    }
}

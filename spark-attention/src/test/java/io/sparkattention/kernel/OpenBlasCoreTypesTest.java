package io.sparkattention.kernel;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Batch invariance under both of OpenBLAS's x86 kernel families, whatever this JVM's environment
 * sets: each case runs {@link RowInvariance} in a JVM of its own with {@code OPENBLAS_CORETYPE}
 * set (OpenBLAS reads it once, when it loads) and the projections on {@code auto} or forced onto
 * the BLAS. A family the CPU cannot run (SkylakeX without AVX-512) is skipped, saying so.
 */
class OpenBlasCoreTypesTest {

    @ParameterizedTest(name = "OPENBLAS_CORETYPE={0}, sparkattention.gemm={1}")
    @CsvSource({"Haswell, auto", "Haswell, blas", "SkylakeX, auto", "SkylakeX, blas"})
    void everyRowGetsItsBitsAloneUnderEachKernelFamily(String coreType, String gemm) throws Exception {
        String flags = Files.readString(Path.of("/proc/cpuinfo"), StandardCharsets.US_ASCII);
        Assumptions.assumeTrue(flags.contains(coreType.equals("SkylakeX") ? " avx512f" : " avx2"),
            "this CPU cannot run OpenBLAS's " + coreType + " kernels");
        Assumptions.assumeTrue(Blas.isNative(), "no native BLAS in this JVM (" + Blas.name() + ")");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of("-Xmx1g", "--add-modules=jdk.incubator.vector", "-Dsparkattention.gemm=" + gemm,
            "-cp", System.getProperty("java.class.path"), RowInvariance.class.getName()));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("OPENBLAS_CORETYPE", coreType);
        builder.environment().put("OPENBLAS_NUM_THREADS", "1");
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(5, TimeUnit.MINUTES), "the child JVM did not end");
        assertTrue(output.contains("OPENBLAS_CORETYPE=" + coreType), output);
        assertEquals(0, process.exitValue(), output);
    }
}

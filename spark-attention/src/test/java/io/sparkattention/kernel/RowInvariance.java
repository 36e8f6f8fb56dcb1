package io.sparkattention.kernel;

import io.sparkattention.bert.BertEncoder;
import io.sparkattention.io.BundledModels;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * The bitwise batch-invariance checks that must hold under every OpenBLAS kernel family, runnable in
 * a JVM of their own ({@link #main}): OpenBLAS picks its kernels from {@code OPENBLAS_CORETYPE} once,
 * when it loads, so {@link OpenBlasCoreTypesTest} starts one JVM per family. Each check returns the
 * problems it found, empty when it holds.
 */
final class RowInvariance {

    /** Output × input features checked: the encoder's projections and outputs narrow enough for the small-matrix kernel. */
    static final int[][] SHAPES = {{1152, 384}, {384, 384}, {1536, 384}, {384, 1536}, {96, 32}, {32, 32}, {64, 32},
        {32, 64}, {2, 40}, {1, 300}};

    private RowInvariance() {
    }

    /**
     * Every row of every stacked call (m from 1 to 40, then 64, 129 and 333, at offsets 0, 3 and
     * the last) against the row computed alone; the first mismatch, or null.
     */
    static String firstStackedRowMismatch(LinearKernel kernel, int n, int k) {
        Random r = new Random(n * 131L + k);
        LinearWeight weight = LinearWeight.of(kernel, gaussian(r, n * k), n, k, gaussian(r, n));
        int rows = 400;
        float[] x = gaussian(r, rows * k);
        float[][] alone = new float[rows][];
        for (int i = 0; i < rows; i++) {
            alone[i] = weight.apply(Arrays.copyOfRange(x, i * k, (i + 1) * k), 1);
        }
        List<Integer> counts = new ArrayList<>();
        for (int m = 1; m <= 40; m++) {
            counts.add(m);
        }
        counts.addAll(List.of(64, 129, 333));
        for (int m : counts) {
            for (int offset : new int[] {0, 3, rows - m}) {
                float[] stacked = weight.apply(Arrays.copyOfRange(x, offset * k, (offset + m) * k), m);
                for (int i = 0; i < m; i++) {
                    if (!Arrays.equals(alone[offset + i], 0, n, stacked, i * n, (i + 1) * n)) {
                        return kernel.name() + " n=" + n + " k=" + k + ": row " + i + " of " + m + " from row " + offset;
                    }
                }
            }
        }
        return null;
    }

    /** The bundled MiniLM's states for a batch of texts against each text alone, on the JVM's projection kernel. */
    static List<String> encoderBatchProblems() throws IOException {
        BertEncoder minilm = BundledModels.encoder("all-minilm-l6-v2");
        Random r = new Random(44);
        int[] lengths = {23, 130, 2, 57, 1, 9, 12, 31};
        int[][] texts = new int[lengths.length][];
        for (int t = 0; t < texts.length; t++) {
            texts[t] = new int[lengths[t]];
            for (int i = 0; i < lengths[t]; i++) {
                texts[t][i] = 1000 + r.nextInt(20000);
            }
        }
        float[][] together = minilm.forward(texts);
        List<String> problems = new ArrayList<>();
        for (int t = 0; t < texts.length; t++) {
            if (!Arrays.equals(minilm.forward(texts[t]), together[t])) {
                problems.add("MiniLM on " + LinearKernel.get().name() + ": text " + t + " of the batch differs from it alone");
            }
        }
        return problems;
    }

    /**
     * Every check of this JVM: the BLAS kernel's claim about its rows (independent or not) is true,
     * {@code auto} picks a kernel with independent rows wherever the Vector API is visible, and the
     * encoder's batches give every text its bits alone on the JVM's kernel.
     */
    static List<String> problems() throws IOException {
        List<String> problems = new ArrayList<>();
        LinearKernel blas = LinearKernel.named("blas");
        boolean anyMismatch = false;
        for (int[] shape : SHAPES) {
            String mismatch = firstStackedRowMismatch(blas, shape[0], shape[1]);
            anyMismatch |= mismatch != null;
            if (mismatch != null && blas.rowsIndependent()) {
                problems.add("claims independent rows, but " + mismatch);
            }
        }
        if (!blas.rowsIndependent() && !anyMismatch) {
            problems.add(blas.name() + " claims its rows are not independent, but every stacked row of "
                + SHAPES.length + " shapes equals the row alone");
        }
        if (GemmChoice.vectorKernel() != null && !LinearKernel.named("auto").rowsIndependent()) {
            problems.add("auto picked " + LinearKernel.named("auto").name() + ", whose rows are not independent");
        }
        problems.addAll(encoderBatchProblems());
        return problems;
    }

    /** Prints this JVM's kernels and problems; exits 1 when there is any. */
    public static void main(String[] args) throws IOException {
        List<String> problems = problems();
        System.out.println("OPENBLAS_CORETYPE=" + Blas.coreType() + " blas=" + LinearKernel.named("blas").name()
            + " rowsIndependent=" + LinearKernel.named("blas").rowsIndependent() + " projections=" + LinearKernel.get().name());
        problems.forEach(p -> System.out.println("PROBLEM " + p));
        System.exit(problems.isEmpty() ? 0 : 1);
    }

    static float[] gaussian(Random r, int n) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = (float) r.nextGaussian();
        }
        return a;
    }
}

package io.sparkattention.kernel;

import dev.ludovic.netlib.blas.BLAS;
import dev.ludovic.netlib.blas.JavaBLAS;
import dev.ludovic.netlib.blas.NativeBLAS;
import java.util.List;

/**
 * The BLAS implementation every product in this library goes through, chosen once per JVM.
 *
 * <p>{@code dev.ludovic.netlib} (the BLAS Spark MLlib ships) prefers the system's native
 * {@code libblas.so.3} and falls back to a Java implementation (the Vector API one when
 * {@code jdk.incubator.vector} is visible). The choice can be forced with the system property
 * {@value #PROPERTY}: {@code auto} (default: netlib's own rule), {@code native} (fail if none
 * loads) or {@code java}, through the choice every kernel family shares
 * ({@link ImplementationChoice}). The chosen class is logged once with {@value #CORE_TYPE};
 * {@link #name()} reports it (the {@code bench} command prints it).
 */
public final class Blas {

    /** System property that forces the implementation: {@code auto}, {@code native} or {@code java}. */
    public static final String PROPERTY = "sparkattention.blas";

    /** The environment variable that chooses OpenBLAS's kernels, logged and reported with the BLAS. */
    public static final String CORE_TYPE = "OPENBLAS_CORETYPE";

    private static final ImplementationChoice<BLAS> CHOICE = new ImplementationChoice<>("BLAS for attention products",
        PROPERTY, List.of("auto", "native", "java"), Blas::make);

    /** Loads the library on first use, not when {@link #coreType()} is asked. */
    private static final class Chosen {
        static final BLAS INSTANCE = CHOICE.choose(blas -> blas.getClass().getName() + ", " + CORE_TYPE + "="
            + coreType());
    }

    private Blas() {
    }

    /** The implementation in use. */
    public static BLAS get() {
        return Chosen.INSTANCE;
    }

    /** Short name of the implementation in use, e.g. {@code JNIBLAS} (native) or {@code VectorBLAS}. */
    public static String name() {
        return Chosen.INSTANCE.getClass().getSimpleName();
    }

    /**
     * {@value #CORE_TYPE} as this JVM's process sees it, or {@code "auto"} when unset (OpenBLAS then
     * picks its kernels from the CPU it detects). OpenBLAS reads it once, when it loads, and only
     * when built for several CPUs (Debian's is); other libraries ignore it. The products' speed
     * depends on it (see {@code conf/spark-env.sh}).
     */
    public static String coreType() {
        return coreType(System.getenv(CORE_TYPE));
    }

    static String coreType(String value) {
        return value == null || value.isBlank() ? "auto" : value;
    }

    /** True when products run in a native library (OpenBLAS, MKL, reference BLAS...). */
    public static boolean isNative() {
        return Chosen.INSTANCE instanceof NativeBLAS;
    }

    /** A new implementation by name ({@code auto}, {@code native}, {@code java}). */
    static BLAS create(String requested) {
        return CHOICE.create(requested);
    }

    private static BLAS make(String name) {
        switch (name) {
            case "native":
                return NativeBLAS.getInstance();
            case "java":
                return JavaBLAS.getInstance();
            default:
                return BLAS.getInstance();
        }
    }
}

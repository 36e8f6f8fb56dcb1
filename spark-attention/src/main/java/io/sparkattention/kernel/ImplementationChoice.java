package io.sparkattention.kernel;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;

/**
 * How every kernel family picks its implementation: once per JVM, by a system property whose
 * default {@value #AUTO} applies the family's own rule, with the choice logged once.
 *
 * <p>A family names its implementations ({@code auto} first) and how to make one by name. The
 * rule behind {@code auto} reads the machine's properties (vector width, whether the BLAS is
 * native), never a timing at start-up, so every executor of a cluster of like machines picks the
 * same implementation and results are reproducible across executors and runs. An unknown name is
 * an error naming the property and the accepted names; asking for a Vector API implementation
 * when {@code jdk.incubator.vector} is not visible is an error saying how to make it visible,
 * while {@code auto} then falls back to a plain implementation, never a crash.
 *
 * <p>The families: {@link GemmChoice} ({@code sparkattention.gemm}, the projections),
 * {@link TileOpsChoice} ({@code sparkattention.tileops}, the attention tiles),
 * {@link DirectAttention} ({@code sparkattention.direct}, its arithmetic), {@link AttentionPath}
 * ({@code sparkattention.attention}, direct or tiled attention by length), {@link Blas}
 * ({@code sparkattention.blas}, netlib's native or Java BLAS), {@link NonFinite}
 * ({@code sparkattention.nonfinite}, the NaN/±∞ scan), {@link AdamUpdate} ({@code sparkattention.adam},
 * Adam's element-wise update), and the encoder's element-wise passes
 * outside this package ({@code sparkattention.encodermath}).
 *
 * @param <T> what the family makes
 */
public final class ImplementationChoice<T> {

    /** The name that applies the family's own rule. */
    public static final String AUTO = "auto";

    private static final Logger LOG = LoggerFactory.getLogger(ImplementationChoice.class);

    private final String family;
    private final String property;
    private final List<String> names;
    private final Function<String, T> factory;

    /**
     * @param family   what is chosen, for messages ("projection arithmetic")
     * @param property the system property that overrides the choice
     * @param names    the accepted names in lower case, {@value #AUTO} among them
     * @param factory  makes the implementation for one of {@code names}
     */
    public ImplementationChoice(String family, String property, List<String> names, Function<String, T> factory) {
        this.family = Objects.requireNonNull(family, "family");
        this.property = Objects.requireNonNull(property, "property");
        this.names = List.copyOf(names);
        this.factory = Objects.requireNonNull(factory, "factory");
        if (!this.names.contains(AUTO)) {
            throw new IllegalArgumentException(family + ": the names " + this.names + " lack \"" + AUTO + "\"");
        }
    }

    /** The system property that overrides the choice. */
    public String property() {
        return property;
    }

    /**
     * A new implementation by name (trimmed, any case).
     *
     * @throws IllegalArgumentException naming the property and the accepted names when the name is unknown
     */
    public T create(String requested) {
        Objects.requireNonNull(requested, property);
        String name = requested.trim().toLowerCase(Locale.ROOT);
        if (!names.contains(name)) {
            throw new IllegalArgumentException(family + " \"" + requested + "\" (system property " + property
                + "): expected " + alternatives());
        }
        return factory.apply(name);
    }

    /**
     * The implementation the system property asks for ({@value #AUTO} when unset), logged once at
     * INFO with the property's value and whether the Vector API is visible. Call it once per JVM,
     * from a static initialiser.
     *
     * @param describe the chosen implementation's name for the log
     */
    public T choose(Function<? super T, String> describe) {
        String requested = System.getProperty(property, AUTO);
        T chosen = create(requested);
        LOG.info("{}: {} ({}={}, Vector API {})", family, describe.apply(chosen), property, requested,
            vectorApiVisible() ? "visible" : "not visible");
        return chosen;
    }

    /** "a, b or c". */
    private String alternatives() {
        int n = names.size();
        return n == 1 ? names.get(0) : String.join(", ", names.subList(0, n - 1)) + " or " + names.get(n - 1);
    }

    /** True when {@code jdk.incubator.vector} is in the boot layer ({@code --add-modules=jdk.incubator.vector}). */
    public static boolean vectorApiVisible() {
        return ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();
    }

    /**
     * A new instance of a class that uses the Vector API, or null when {@code jdk.incubator.vector}
     * is not visible. By name, so that the callers link without the module; a missing module
     * surfaces as a {@link LinkageError} (NoClassDefFoundError) here.
     */
    public static <T> T vectorInstance(String className, Class<T> type) {
        try {
            Class<?> c = Class.forName(className);
            java.lang.reflect.Constructor<?> constructor = c.getDeclaredConstructor();
            constructor.setAccessible(true);
            return type.cast(constructor.newInstance());
        } catch (ReflectiveOperationException | LinkageError noVectorApi) {
            LOG.debug("{} unavailable: {}", className, noVectorApi.toString());
            return null;
        }
    }

    /**
     * {@code vector} when it is not null, else the error that says how to make the Vector API visible.
     *
     * @param family the family asked for ("projection arithmetic")
     */
    public static <T> T requireVector(T vector, String family) {
        if (vector == null) {
            throw new IllegalStateException(family + " \"vector\" needs the Vector API: "
                + "run the JVM with --add-modules=jdk.incubator.vector");
        }
        return vector;
    }
}

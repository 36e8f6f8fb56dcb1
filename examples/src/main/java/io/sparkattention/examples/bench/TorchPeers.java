package io.sparkattention.examples.bench;

import io.sparkattention.examples.common.BadInputException;
import io.sparkattention.bert.BertConfig;
import io.sparkattention.bert.BertEncoder;
import io.sparkattention.bert.BertWeights;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.Iterator;
import java.util.List;
import java.util.ServiceLoader;
import java.util.stream.Stream;

/**
 * Finds the torch peer module's build and loads its {@link TorchRuntime} once per JVM, in a class
 * loader of its own that takes DJL's classes ({@code ai.djl.*}) from the module's class path first:
 * the peer needs DJL's {@code api} 0.36.0 beside {@code pytorch-engine} 0.36.0, the tokenizers of
 * the command line bring {@code api} 0.38.0, and one class path cannot hold both. Every other class
 * comes from this JVM's class path, so the runtime's interface is this package's.
 *
 * <p>The module is not part of the default build (its native jar is 112 MB):
 * {@code examples/bin/spark-attention} builds it with {@code -Ptorch} when {@code --peer torch} is
 * first asked for, which leaves {@value #CLASSPATH_FILE} (its dependencies) beside its jar.
 */
public final class TorchPeers {

    /** System property: the torch peer module's {@code target} directory (default under spark.attention.home). */
    public static final String TARGET_PROPERTY = "spark.attention.torch.target";
    /** The module's run-time class path, one line, written by its build into its target directory. */
    static final String CLASSPATH_FILE = "torch-classpath";
    /** DJL's intra-op thread count property. */
    static final String THREADS_PROPERTY = "ai.djl.pytorch.num_threads";
    /** How the module is built when the launcher does not. */
    static final String BUILD_COMMAND = "mvn -B -q -Ptorch -pl examples/torch-peer -am package -DskipTests";

    private static TorchRuntime runtime;

    private TorchPeers() {
    }

    /**
     * The runtime, loaded on first use with {@code threads} intra-op threads (libtorch fixes them
     * when it starts: a later call with another count is refused).
     *
     * @throws BadInputException when the module has not been built
     */
    public static synchronized TorchRuntime runtime(int threads) {
        if (runtime == null) {
            String given = System.getProperty(THREADS_PROPERTY);
            if (given != null && !given.equals(Integer.toString(threads))) {
                throw new BadInputException("-D" + THREADS_PROPERTY + "=" + given + " differs from --threads " + threads);
            }
            System.setProperty(THREADS_PROPERTY, Integer.toString(threads));
            // DJL must find libtorch in the native jar on the class path, never download it.
            System.setProperty("ai.djl.offline", "true");
            runtime = load(classPath(target()));
        }
        if (runtime.threads() != threads) {
            throw new BadInputException("PyTorch already runs with " + runtime.threads() + " threads in this JVM, not "
                + threads);
        }
        return runtime;
    }

    /** An encoder's parameters as the runtime takes them. */
    public static TorchRuntime.BertTensors tensors(BertEncoder encoder) {
        BertConfig c = encoder.config();
        return new TorchRuntime.BertTensors(encoder.weights().tensors(), BertWeights.shapes(c), c.heads(),
            c.layerNormEps());
    }

    /**
     * Checks that the module is built, before any other work of a run that needs it.
     *
     * @throws BadInputException naming the missing file and how to build it
     */
    public static void checkBuilt() {
        classPath(target());
    }

    /** The module's target directory. */
    static Path target() {
        String dir = System.getProperty(TARGET_PROPERTY);
        return dir != null ? Paths.get(dir)
            : Paths.get(System.getProperty("spark.attention.home", "."), "examples", "torch-peer", "target");
    }

    /** The module's jar followed by its dependencies. */
    static List<URL> classPath(Path target) {
        Path deps = target.resolve(CLASSPATH_FILE);
        if (!Files.isRegularFile(deps)) {
            throw new BadInputException("--peer torch: the torch peer is not built (" + deps + " is missing); "
                + "examples/bin/spark-attention builds it, or run " + BUILD_COMMAND);
        }
        List<URL> urls = new ArrayList<>();
        try (Stream<Path> files = Files.list(target)) {
            Iterator<Path> jars = files.filter(p -> {
                String name = p.getFileName().toString();
                return name.startsWith("spark-attention-torch-peer-") && name.endsWith(".jar")
                    && !name.endsWith("-tests.jar") && !name.endsWith("-sources.jar");
            }).iterator();
            if (!jars.hasNext()) {
                throw new BadInputException("--peer torch: no spark-attention-torch-peer jar in " + target + "; run "
                    + BUILD_COMMAND);
            }
            urls.add(jars.next().toUri().toURL());
            for (String entry : Files.readString(deps, StandardCharsets.UTF_8).trim().split(java.io.File.pathSeparator)) {
                if (!entry.isEmpty()) {
                    urls.add(Paths.get(entry).toUri().toURL());
                }
            }
        } catch (MalformedURLException e) {
            throw new IllegalStateException(e);
        } catch (IOException e) {
            throw new UncheckedIOException("--peer torch: cannot read " + target + ": " + e.getMessage(), e);
        }
        return urls;
    }

    private static TorchRuntime load(List<URL> urls) {
        ClassLoader loader = new DjlFirstLoader(urls.toArray(URL[]::new), TorchPeers.class.getClassLoader());
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        // DJL finds its engine (ServiceLoader) and libtorch's native jar through the context loader.
        thread.setContextClassLoader(loader);
        try {
            Iterator<TorchRuntime> found = ServiceLoader.load(TorchRuntime.class, loader).iterator();
            if (!found.hasNext()) {
                throw new IllegalStateException("the torch peer jar declares no " + TorchRuntime.class.getName());
            }
            return found.next();
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    /**
     * Loads {@code ai.djl.*} classes and DJL's service files from its own URLs only (the command
     * line's tokenizers jar declares an engine of DJL 0.38 that must not be seen), other resources
     * from its own URLs first (libtorch's native jar), everything else parent first.
     */
    static final class DjlFirstLoader extends URLClassLoader {

        static {
            registerAsParallelCapable();
        }

        private static final String DJL = "ai.djl.", DJL_SERVICES = "META-INF/services/ai.djl.";

        DjlFirstLoader(URL[] urls, ClassLoader parent) {
            super("torch-peer", urls, parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.startsWith(DJL)) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    c = findClass(name);
                }
                if (resolve) {
                    resolveClass(c);
                }
                return c;
            }
        }

        @Override
        public URL getResource(String name) {
            URL own = findResource(name);
            return own != null || name.startsWith(DJL_SERVICES) ? own : super.getResource(name);
        }

        @Override
        public Enumeration<URL> getResources(String name) throws IOException {
            return name.startsWith(DJL_SERVICES) ? findResources(name) : super.getResources(name);
        }
    }
}

package io.sparkattention.examples.docs;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.StandardLocation;
import javax.tools.ToolProvider;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.stream.Collectors;

/**
 * A page's Java block compiled in this JVM with {@code javax.tools} against the test class path and run: the
 * block's {@code given} statements, the block as written, its {@code then} statements, in one method with the
 * imports a user of the library writes. String literals that start with one of {@link #ROOTS} (a reader's
 * {@code "/models/encoder.safetensors"}) are moved into the page's working directory, in Python blocks too.
 */
final class JavaBlocks {

    /** Absolute directories the pages write about, mapped into the page's working directory. */
    static final List<String> ROOTS = List.of("/models/", "/pictures/");

    private static final String IMPORTS = String.join("\n",
        "import java.nio.file.*;",
        "import java.util.*;",
        "import org.apache.spark.ml.*;",
        "import org.apache.spark.ml.classification.LogisticRegression;",
        "import org.apache.spark.sql.*;",
        "import static org.apache.spark.sql.functions.*;",
        "import io.sparkattention.ml.*;",
        "import io.sparkattention.ml.feature.*;",
        // ml keeps a read alias of the encoder's old name: the single-type import picks the stage.
        "import io.sparkattention.ml.feature.BertEncoderModel;",
        "import io.sparkattention.ml.classification.*;",
        "import io.sparkattention.ml.lm.*;",
        "import io.sparkattention.rows.*;",
        "import io.sparkattention.viz.*;",
        "import io.sparkattention.examples.docs.DocsGiven;",
        "import static io.sparkattention.examples.docs.DocsGiven.*;");

    private JavaBlocks() {
    }

    /** The source of one block's class. */
    static String source(String className, DocPage.Block block, Path workDir) {
        String body = inWorkDir(block.given + "\n// " + block + "\n" + block.code + "\n" + block.then, workDir);
        return "package docsblocks;\n" + IMPORTS + "\n"
            + "public final class " + className + " implements java.util.concurrent.Callable<Object> {\n"
            + "  public Object call() throws Exception {\n"
            + "    SparkSession spark = DocsGiven.spark();\n"
            + body.indent(4)
            + "    return null;\n  }\n}\n";
    }

    /** {@code code} with its string literals that start with one of {@link #ROOTS} moved into {@code workDir}. */
    static String inWorkDir(String code, Path workDir) {
        for (String root : ROOTS) {
            for (String quote : List.of("\"", "'")) {
                code = code.replace(quote + root, quote + workDir.resolve(root.substring(1)) + "/");
            }
        }
        return code;
    }

    /** Compiles and runs the block; a compile error fails with the compiler's messages and the source. */
    static void run(DocPage.Block block, Path workDir) throws Exception {
        createRoots(workDir);
        String className = "Block_" + block.page.name.replaceAll("[^A-Za-z0-9]", "_") + "_" + block.line;
        String source = source(className, block, workDir);
        Path classes = Files.createTempDirectory(workDir, "classes");
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, null, StandardCharsets.UTF_8)) {
            files.setLocation(StandardLocation.CLASS_OUTPUT, List.of(classes.toFile()));
            files.setLocation(StandardLocation.CLASS_PATH, classPath());
            JavaFileObject unit = new SimpleJavaFileObject(URI.create("string:///docsblocks/" + className + ".java"),
                JavaFileObject.Kind.SOURCE) {
                @Override
                public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                    return source;
                }
            };
            boolean ok = compiler.getTask(null, files, diagnostics, List.of("-proc:none", "-Xlint:none"), null,
                List.of(unit)).call();
            if (!ok) {
                String messages = diagnostics.getDiagnostics().stream()
                    .filter(d -> d.getKind() == Diagnostic.Kind.ERROR)
                    .map(d -> "line " + d.getLineNumber() + ": " + d.getMessage(null))
                    .collect(Collectors.joining("\n"));
                throw new AssertionError(block + " does not compile:\n" + messages + "\n--- as compiled:\n" + source);
            }
        }
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()},
            JavaBlocks.class.getClassLoader())) {
            Callable<?> code = (Callable<?>) loader.loadClass("docsblocks." + className).getConstructor().newInstance();
            code.call();
        }
    }

    static void createRoots(Path workDir) throws IOException {
        for (String root : ROOTS) {
            Files.createDirectories(workDir.resolve(root.substring(1)));
        }
    }

    /**
     * The test JVM's class path as files; a manifest-only jar (Surefire's booter) is replaced by the entries of
     * its {@code Class-Path}.
     */
    private static List<File> classPath() throws IOException {
        Set<File> out = new LinkedHashSet<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            File file = new File(entry);
            out.add(file);
            if (file.isFile() && entry.endsWith(".jar")) {
                try (JarFile jar = new JarFile(file)) {
                    Manifest manifest = jar.getManifest();
                    String cp = manifest == null ? null : manifest.getMainAttributes().getValue("Class-Path");
                    if (cp != null) {
                        for (String url : cp.trim().split("\\s+")) {
                            out.add(new File(file.getParentFile().toURI().resolve(url)));
                        }
                    }
                }
            }
        }
        return new ArrayList<>(out);
    }
}

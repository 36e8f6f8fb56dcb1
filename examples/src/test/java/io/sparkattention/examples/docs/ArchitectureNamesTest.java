package io.sparkattention.examples.docs;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/ARCHITECTURE.md names only what exists: every class it writes in backticks ({@code FlashAttention},
 * {@code kernel.LinearWeight}, {@code exec/FixedOrderAggregate}, {@code StepJob.GROUP_SUMS_BUDGET_BYTES}) is a
 * source file of the project — in the package the name gives, with the member the name gives — or a class on the
 * test class path (Spark's, the JDK's), and every package its package table lists is a directory of the library.
 * A failure lists every name that no longer resolves, so a move of classes is fixed on the page in one pass.
 */
class ArchitectureNamesTest {

    private static final Pattern BACKTICKED = Pattern.compile("`([^`\\n]+)`");
    private static final Pattern CHAIN = Pattern.compile("^[A-Za-z_][A-Za-z0-9_]*(?:[./][A-Za-z_][A-Za-z0-9_]*)*");
    /** A class's simple name: capitalised, with a lower-case letter (so not a constant or an acronym). */
    private static final Pattern CLASS = Pattern.compile("[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*");
    private static final List<String> SOURCE_ROOTS = List.of("spark-attention/src/main/java",
        "spark-attention/src/test/java", "examples/src/main/java", "examples/src/test/java", "examples/src/jmh/java");
    /** Where a name that is not the project's is looked for on the class path. */
    private static final List<String> LIBRARY_PACKAGES = List.of("java.lang.", "java.util.", "org.apache.spark.",
        "org.apache.spark.sql.", "org.apache.spark.sql.classic.", "org.apache.spark.sql.catalyst.",
        "org.apache.spark.sql.catalyst.expressions.", "org.apache.spark.sql.catalyst.expressions.codegen.",
        "org.apache.spark.sql.catalyst.util.", "org.apache.spark.unsafe.", "org.apache.spark.unsafe.types.",
        "org.apache.spark.rdd.", "org.apache.spark.broadcast.", "org.apache.spark.ml.", "org.apache.spark.ml.util.",
        "org.apache.spark.ml.linalg.", "org.apache.spark.ml.attribute.", "org.apache.spark.ml.classification.",
        "org.apache.spark.ml.tuning.", "org.apache.spark.mllib.evaluation.");

    @Test
    @DisplayName("every class and package ARCHITECTURE.md names exists")
    void everyNamedClassExists() throws IOException {
        Path root = DocPage.root();
        String page = Files.readString(root.resolve("docs/ARCHITECTURE.md")).replaceAll("(?ms)^```.*?^```", "");
        Map<String, List<Path>> sources = sources(root);
        TreeSet<String> missing = new TreeSet<>();
        int checked = 0;
        Matcher m = BACKTICKED.matcher(page);
        while (m.find()) {
            Matcher chain = CHAIN.matcher(m.group(1));
            if (!chain.find()) {
                continue;
            }
            String[] parts = chain.group().split("[./]");
            int c = 0;
            while (c < parts.length && !CLASS.matcher(parts[c]).matches()) {
                c++;
            }
            if (c == parts.length) {
                continue;
            }
            checked++;
            String pkg = String.join("/", List.of(parts).subList(0, c));
            String member = c + 1 < parts.length ? parts[c + 1] : null;
            if (!resolves(sources, parts[c], pkg, member)) {
                missing.add(m.group(1));
            }
        }
        for (String pkg : packageTable(page)) {
            checked++;
            if (!Files.isDirectory(root.resolve("spark-attention/src/main/java/io/sparkattention")
                .resolve(pkg.replace('.', '/')))) {
                missing.add(pkg + " (package table)");
            }
        }
        assertTrue(checked > 100, checked + " names checked");
        assertTrue(missing.isEmpty(), "docs/ARCHITECTURE.md names what does not exist (moved or renamed?): " + missing);
    }

    private static boolean resolves(Map<String, List<Path>> sources, String name, String pkg, String member) {
        List<Path> files = sources.getOrDefault(name, List.of());
        if (!files.isEmpty()) {
            for (Path file : files) {
                boolean inPackage = pkg.isEmpty() || file.getParent().toString().replace('\\', '/').endsWith("/" + pkg);
                if (inPackage && (member == null || contains(file, member))) {
                    return true;
                }
            }
            return false;
        }
        String qualified = (pkg.isEmpty() ? "" : pkg.replace('/', '.') + ".") + name;
        for (String prefix : LIBRARY_PACKAGES) {
            try {
                Class.forName(prefix + qualified, false, ArchitectureNamesTest.class.getClassLoader());
                return true;
            } catch (ClassNotFoundException | LinkageError e) {
                // not in this package
            }
        }
        return false;
    }

    private static boolean contains(Path file, String member) {
        try {
            return Files.readString(file).contains(member);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every Java source of the project by simple class name. */
    private static Map<String, List<Path>> sources(Path root) throws IOException {
        Map<String, List<Path>> out = new HashMap<>();
        for (String dir : SOURCE_ROOTS) {
            if (!Files.isDirectory(root.resolve(dir))) {
                continue;
            }
            try (Stream<Path> files = Files.walk(root.resolve(dir))) {
                files.filter(f -> f.toString().endsWith(".java")).forEach(f -> out.computeIfAbsent(
                    f.getFileName().toString().replace(".java", ""), k -> new ArrayList<>()).add(f));
            }
        }
        return out;
    }

    /** The first column of the package table: the rows under a header that starts with "| package". */
    private static List<String> packageTable(String page) {
        List<String> out = new ArrayList<>();
        int start = page.indexOf("\n| package |");
        assertTrue(start >= 0, "ARCHITECTURE.md has a package table");
        for (String line : page.substring(start + 1).split("\n")) {
            if (!line.startsWith("|")) {
                break;
            }
            Matcher name = Pattern.compile("^\\| `([a-z.]+)` \\|").matcher(line);
            if (name.find()) {
                out.add(name.group(1));
            }
        }
        assertTrue(out.size() >= 8, "packages in the table: " + out);
        return out;
    }
}

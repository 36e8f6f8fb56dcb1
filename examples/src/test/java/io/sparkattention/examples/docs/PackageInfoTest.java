package io.sparkattention.examples.docs;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every public package of the library says what it is: each directory under
 * {@code spark-attention/src/main/java} holding a public type has a {@code package-info.java} whose
 * Javadoc names at least one of the package's types. A failure lists every package that lacks one.
 */
class PackageInfoTest {

    private static final Pattern PUBLIC_TYPE = Pattern.compile("(?m)^public\\s+"
        + "(?:(?:final|abstract|sealed|non-sealed|static)\\s+)*(?:class|interface|record|enum|@interface)\\s");

    @Test
    @DisplayName("every library package with a public type has a package-info.java documenting it")
    void everyPublicPackageHasPackageInfo() throws IOException {
        Path sources = DocPage.root().resolve("spark-attention/src/main/java");
        TreeSet<String> missing = new TreeSet<>();
        int packages = 0;
        try (Stream<Path> dirs = Files.walk(sources)) {
            for (Path dir : dirs.filter(Files::isDirectory).toList()) {
                List<Path> types = javaFiles(dir);
                if (types.stream().noneMatch(PackageInfoTest::declaresPublicType)) {
                    continue;
                }
                packages++;
                String pkg = sources.relativize(dir).toString().replace('\\', '/').replace('/', '.');
                Path info = dir.resolve("package-info.java");
                if (!Files.isRegularFile(info)) {
                    missing.add(pkg + ": no package-info.java");
                } else if (!documentsATypeOf(Files.readString(info), types)) {
                    missing.add(pkg + ": package-info.java has no Javadoc naming one of the package's types");
                }
            }
        }
        assertTrue(packages >= 11, packages + " public packages found under " + sources);
        assertTrue(missing.isEmpty(), "packages without their documentation: " + missing);
    }

    private static List<Path> javaFiles(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.toString().endsWith(".java") && !f.endsWith("package-info.java")).toList();
        }
    }

    private static boolean declaresPublicType(Path file) {
        try {
            return PUBLIC_TYPE.matcher(Files.readString(file)).find();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static boolean documentsATypeOf(String info, List<Path> types) {
        int start = info.indexOf("/**"), end = info.indexOf("*/");
        if (start < 0 || end < start || info.indexOf("package ", end) < 0) {
            return false;
        }
        String doc = info.substring(start, end);
        return types.stream().map(f -> f.getFileName().toString().replace(".java", ""))
            .anyMatch(name -> Pattern.compile("\\b" + name + "\\b").matcher(doc).find());
    }
}

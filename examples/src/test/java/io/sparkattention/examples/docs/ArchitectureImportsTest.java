package io.sparkattention.examples.docs;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/ARCHITECTURE.md's imports table is the library's imports: for every package under
 * {@code spark-attention/src/main/java/io/sparkattention}, the project packages its sources name
 * (in imports, or written out in code) and the libraries they import, computed from the sources
 * here and compared row by row with the table. A failure prints the exact rows to add to the table
 * and to remove from it, so a new package or a new arrow is put on the page by pasting them.
 */
class ArchitectureImportsTest {

    static final Path LIBRARY = Path.of("spark-attention/src/main/java/io/sparkattention");
    /** The table's header, by which the test finds it. */
    static final String HEADER = "| package | imports from the project | and from libraries |";
    /** The library's package prefix. */
    static final String PROJECT = "io.sparkattention.";
    private static final Pattern IMPORT = Pattern.compile("(?m)^import\\s+(?:static\\s+)?([\\w.]+)");
    /** A library's name in the table by its imports' package prefix; the JDK's packages are left out. */
    private static final Map<String, String> LIBRARIES = libraries();

    private static Map<String, String> libraries() {
        Map<String, String> names = new LinkedHashMap<>();
        names.put("org.apache.spark.", "Spark");
        names.put("scala.", "Spark");
        names.put("org.apache.hadoop.", "Hadoop");
        names.put("com.esotericsoftware.", "Kryo");
        names.put("org.slf4j.", "SLF4J");
        names.put("dev.ludovic.netlib.", "netlib BLAS");
        names.put("jdk.incubator.vector.", "the Vector API");
        names.put("com.fasterxml.jackson.", "Jackson");
        names.put("com.google.protobuf.", "protobuf");
        names.put("ai.djl.huggingface.", "DJL's Hugging Face tokenizers");
        return names;
    }

    @Test
    @DisplayName("ARCHITECTURE.md's imports table lists exactly what each library package imports")
    void importsTableMatchesTheSources() throws IOException {
        Path root = DocPage.root();
        List<String> computed = rows(root.resolve(LIBRARY), PROJECT);
        List<String> written = table(Files.readString(root.resolve("docs/ARCHITECTURE.md")));
        List<String> add = new ArrayList<>(computed);
        add.removeAll(written);
        List<String> remove = new ArrayList<>(written);
        remove.removeAll(computed);
        assertTrue(add.isEmpty() && remove.isEmpty(), "docs/ARCHITECTURE.md's imports table is not the sources':\n"
            + (add.isEmpty() ? "" : "rows to add:\n" + String.join("\n", add) + "\n")
            + (remove.isEmpty() ? "" : "rows to remove:\n" + String.join("\n", remove) + "\n"));
        assertEquals(computed, written, "the table's rows are in package order");
    }

    @Test
    @DisplayName("the lab and the command line's shared parts never import the user's commands (examples.cli)")
    void labImportsNoCommand() throws IOException {
        Path examples = DocPage.root().resolve("examples/src/main/java/io/sparkattention/examples");
        List<String> back = new ArrayList<>();
        List<String> rows = rows(examples, PROJECT + "examples.");
        for (String row : rows) {
            boolean lab = row.startsWith("| `bench` |") || row.startsWith("| `scaling` |")
                || row.startsWith("| `common` |");
            if (lab && row.contains("`cli`")) {
                back.add(row);
            }
        }
        assertTrue(back.isEmpty(), "packages of examples importing examples.cli: " + back);
        assertTrue(rows.stream().anyMatch(r -> r.startsWith("| `bench` |") && r.contains("`common`")),
            "bench imports examples.common");
    }

    /**
     * One table row per package, in package order, computed from the sources under {@code library},
     * whose packages are named after {@code prefix}.
     */
    static List<String> rows(Path library, String prefix) throws IOException {
        Pattern named = Pattern.compile(
            "\\b" + Pattern.quote(prefix) + "([a-z][a-z0-9]*(?:\\.[a-z][a-z0-9]*)*)\\.[A-Z]");
        Map<String, TreeSet<String>> project = new TreeMap<>();
        Map<String, TreeSet<String>> libraries = new TreeMap<>();
        try (Stream<Path> files = Files.walk(library)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
                String pkg = library.relativize(file.getParent()).toString().replace('\\', '/').replace('/', '.');
                String code = withoutCommentsAndStrings(Files.readString(file));
                TreeSet<String> uses = project.computeIfAbsent(pkg, k -> new TreeSet<>());
                TreeSet<String> libs = libraries.computeIfAbsent(pkg,
                    k -> new TreeSet<>(String.CASE_INSENSITIVE_ORDER));
                Matcher m = named.matcher(code);
                while (m.find()) {
                    if (!m.group(1).equals(pkg)) {
                        uses.add(m.group(1));
                    }
                }
                Matcher i = IMPORT.matcher(code);
                while (i.find()) {
                    String name = library(i.group(1));
                    if (name != null) {
                        libs.add(name);
                    }
                }
            }
        }
        List<String> rows = new ArrayList<>();
        for (String pkg : project.keySet()) {
            rows.add(row(pkg, project.get(pkg), libraries.get(pkg)));
        }
        return rows;
    }

    private static String row(String pkg, TreeSet<String> uses, TreeSet<String> libs) {
        List<String> quoted = uses.stream().map(p -> "`" + p + "`").toList();
        return "| `" + pkg + "` | " + (quoted.isEmpty() ? "—" : String.join(", ", quoted)) + " | "
            + (libs.isEmpty() ? "—" : String.join(", ", libs)) + " |";
    }

    /** The table name of the library an import comes from, or null for the JDK's and the project's own. */
    private static String library(String imported) {
        if (imported.startsWith("java.") || imported.startsWith("javax.") || imported.startsWith(PROJECT)) {
            return null;
        }
        for (Map.Entry<String, String> e : LIBRARIES.entrySet()) {
            if (imported.startsWith(e.getKey())) {
                return e.getValue();
            }
        }
        String[] parts = imported.split("\\.");
        return parts.length > 2 ? parts[0] + "." + parts[1] : imported;
    }

    /** The rows under the imports table's header, trimmed. */
    static List<String> table(String page) {
        int start = page.indexOf("\n" + HEADER + "\n");
        assertTrue(start >= 0, "docs/ARCHITECTURE.md has a table headed " + HEADER);
        List<String> rows = new ArrayList<>();
        String[] lines = page.substring(start + 1).split("\n");
        for (int i = 2; i < lines.length && lines[i].startsWith("|"); i++) {
            rows.add(lines[i].trim());
        }
        return rows;
    }

    /** Java source with its comments and string and character literals blanked, so only code names packages. */
    static String withoutCommentsAndStrings(String source) {
        StringBuilder out = new StringBuilder(source.length());
        int n = source.length();
        for (int i = 0; i < n; i++) {
            char c = source.charAt(i);
            if (c == '/' && i + 1 < n && source.charAt(i + 1) == '/') {
                while (i < n && source.charAt(i) != '\n') {
                    i++;
                }
                out.append('\n');
            } else if (c == '/' && i + 1 < n && source.charAt(i + 1) == '*') {
                int end = source.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 1;
                out.append(' ');
            } else if (c == '"' && source.startsWith("\"\"\"", i)) {
                int end = source.indexOf("\"\"\"", i + 3);
                i = end < 0 ? n : end + 2;
                out.append("\"\"");
            } else if (c == '"' || c == '\'') {
                int j = i + 1;
                while (j < n && source.charAt(j) != c) {
                    j += source.charAt(j) == '\\' ? 2 : 1;
                }
                i = j;
                out.append(c).append(c);
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}

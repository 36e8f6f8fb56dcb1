package io.sparkattention.examples.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The application jar ({@code examples/target/*-all.jar}, built by {@code mvn package}) on a stock
 * Spark 4.1 class path: Spark's own run-time dependencies and nothing else, resolved from
 * {@code examples/src/it/stock-spark/pom.xml}. The jar holds what the commands need beyond Spark
 * and none of Spark's classes, and {@code spark-submit --class SparkAttentionCli that.jar embed}
 * on that class path writes the same bits as the launcher.
 */
class ApplicationJarIT {

    private static final Path ROOT = Paths.get(System.getProperty("spark.attention.root", "..")).toAbsolutePath()
        .normalize();
    private static final Path TARGET = ROOT.resolve("examples/target");
    private static final String CLI = "io.sparkattention.examples.cli.SparkAttentionCli";

    @Test
    void embedThroughSparkSubmitOnStockSparkEqualsTheLauncher() throws Exception {
        Path jar = applicationJar();
        List<Path> spark = stockSparkClassPath();
        checkContents(jar, spark);

        Path dir = TARGET.resolve("it-application-jar");
        deleteTree(dir);
        Files.createDirectories(dir);
        Path input = dir.resolve("texts.jsonl");
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            String text = i % 7 == 0 ? "A longer passage, number " + i + ", about letters, visits and a ball at Netherfield "
                + "that everybody in the neighbourhood talks of for weeks before and after." : "Sentence " + i + ".";
            lines.add(new ObjectMapper().createObjectNode().put("text", text).toString());
        }
        Files.write(input, lines, StandardCharsets.UTF_8);

        Path submitted = dir.resolve("submitted");
        List<String> submit = new ArrayList<>(javaWithSparkFlags());
        submit.add("-cp");
        submit.add(spark.stream().map(Path::toString).collect(Collectors.joining(java.io.File.pathSeparator)));
        submit.addAll(List.of("org.apache.spark.deploy.SparkSubmit", "--master", "local[2]", "--conf",
            "spark.ui.enabled=false", "--class", CLI, jar.toString(), "embed", "--input", input.toString(),
            "--output", submitted.toString(), "--output-format", "json"));
        Result viaSubmit = run(submit, dir.resolve("submit"));
        assertEquals(0, viaSubmit.code, viaSubmit::toString);

        Path launched = dir.resolve("launched");
        Result viaLauncher = run(List.of(ROOT.resolve("examples/bin/spark-attention").toString(), "embed", "--input",
            input.toString(), "--output", launched.toString(), "--output-format", "json", "--master", "local[2]"),
            dir.resolve("launcher"));
        assertEquals(0, viaLauncher.code, viaLauncher::toString);

        TreeMap<String, JsonNode> a = rows(submitted), b = rows(launched);
        assertEquals(40, a.size());
        assertEquals(a.keySet(), b.keySet());
        for (String text : a.keySet()) {
            assertEquals(b.get(text).get("input_ids"), a.get(text).get("input_ids"), text);
            JsonNode ea = a.get(text).get("embedding"), eb = b.get(text).get("embedding");
            assertEquals(eb, ea, "embedding of " + text);
            assertTrue(ea.toString().length() > 100, "an embedding was written for " + text);
        }
    }

    /** The jar holds the commands' dependencies beyond Spark, and no class that Spark's class path has. */
    private static void checkContents(Path jar, List<Path> spark) throws IOException {
        Set<String> ours = new HashSet<>();
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            for (Enumeration<? extends ZipEntry> e = zip.entries(); e.hasMoreElements(); ) {
                ours.add(e.nextElement().getName());
            }
        }
        for (String needed : List.of(CLI.replace('.', '/') + ".class", "io/sparkattention/ml/feature/HuggingFaceTokenizer.class",
            "picocli/CommandLine.class", "ai/djl/huggingface/tokenizers/HuggingFaceTokenizer.class",
            "native/lib/linux-x86_64/cpu/libtokenizers.so", "com/sun/jna/Native.class",
            "com/sun/jna/linux-x86-64/libjnidispatch.so", "all-minilm-l6-v2.onnx", "all-minilm-l6-v2-tokenizer.json")) {
            assertTrue(ours.contains(needed), jar + " lacks " + needed);
        }
        for (String entry : ours) {
            assertFalse(entry.startsWith("org/apache/spark/") || entry.startsWith("scala/")
                || entry.startsWith("org/apache/hadoop/") || entry.startsWith("ai/onnxruntime/"), jar + " holds " + entry);
        }
        List<String> clashes = new ArrayList<>();
        for (Path lib : spark) {
            if (!lib.toString().endsWith(".jar")) {
                continue;
            }
            try (ZipFile zip = new ZipFile(lib.toFile())) {
                for (Enumeration<? extends ZipEntry> e = zip.entries(); e.hasMoreElements(); ) {
                    String name = e.nextElement().getName();
                    if (name.endsWith(".class") && !name.endsWith("module-info.class") && ours.contains(name)) {
                        clashes.add(name + " (also in " + lib.getFileName() + ")");
                    }
                }
            }
        }
        assertTrue(clashes.isEmpty(), "classes Spark's class path already has: "
            + clashes.subList(0, Math.min(10, clashes.size())));
    }

    private static Path applicationJar() throws IOException {
        try (Stream<Path> files = Files.list(TARGET)) {
            List<Path> jars = files.filter(p -> p.getFileName().toString().matches("spark-attention-examples-.*-all\\.jar"))
                .toList();
            assertEquals(1, jars.size(), "one application jar in " + TARGET + ": " + jars);
            return jars.get(0);
        }
    }

    /** Spark 4.1's run-time class path, resolved once by Maven from the stock POM (kept while the POM is older). */
    private static List<Path> stockSparkClassPath() throws Exception {
        Path pom = ROOT.resolve("examples/src/it/stock-spark/pom.xml");
        Path file = TARGET.resolve("stock-spark/classpath");
        if (!Files.exists(file) || Files.getLastModifiedTime(file).compareTo(Files.getLastModifiedTime(pom)) < 0) {
            String home = System.getProperty("maven.home");
            String mvn = home != null ? Paths.get(home, "bin", "mvn").toString() : "mvn";
            Result resolved = run(List.of(mvn, "-q", "-B", "-f", pom.toString(), "dependency:build-classpath",
                "-Dmdep.outputFile=" + file), TARGET.resolve("stock-spark"));
            assertEquals(0, resolved.code, resolved::toString);
        }
        List<Path> jars = new ArrayList<>();
        for (String entry : Files.readString(file, StandardCharsets.UTF_8).trim().split(java.io.File.pathSeparator)) {
            jars.add(Paths.get(entry));
        }
        assertTrue(jars.stream().anyMatch(p -> p.getFileName().toString().startsWith("spark-mllib_2.13-4.1")), "" + jars);
        return jars;
    }

    /** java with Spark's JVM flags, as the launcher writes them (target/launcher/jvm-flags). */
    private static List<String> javaWithSparkFlags() throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx1g");
        for (String flag : Files.readString(TARGET.resolve("launcher/jvm-flags"), StandardCharsets.UTF_8).trim()
            .split("\\s+")) {
            command.add(flag);
        }
        return command;
    }

    /** Every output row by its text. */
    private static TreeMap<String, JsonNode> rows(Path output) throws IOException {
        TreeMap<String, JsonNode> rows = new TreeMap<>();
        ObjectMapper json = new ObjectMapper();
        try (Stream<Path> files = Files.list(output)) {
            for (Path part : files.filter(p -> p.getFileName().toString().startsWith("part-")).sorted().toList()) {
                for (String line : Files.readAllLines(part, StandardCharsets.UTF_8)) {
                    if (!line.isBlank()) {
                        JsonNode row = json.readTree(line);
                        rows.put(row.get("text").asText(), row);
                    }
                }
            }
        }
        return rows;
    }

    private record Result(int code, String stdout, String stderr) {
        @Override
        public String toString() {
            return "exit " + code + "\nstdout:\n" + stdout + "\nstderr:\n" + stderr;
        }
    }

    private static Result run(List<String> command, Path logs) throws IOException, InterruptedException {
        Files.createDirectories(logs);
        Path out = logs.resolve("stdout.txt"), err = logs.resolve("stderr.txt");
        ProcessBuilder builder = new ProcessBuilder(command).directory(TARGET.toFile())
            .redirectOutput(out.toFile()).redirectError(err.toFile());
        builder.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().put("SPARK_CONF_DIR", ROOT.resolve("conf").toString());
        Process process = builder.start();
        if (!process.waitFor(600, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("did not finish in 600 s: " + command.subList(0, Math.min(4, command.size())));
        }
        return new Result(process.exitValue(), Files.readString(out), Files.readString(err));
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted((x, y) -> y.getNameCount() - x.getNameCount()).toList()) {
                Files.delete(p);
            }
        }
    }
}

package io.sparkattention.examples.docs;

import io.sparkattention.io.BundledModels;
import io.sparkattention.ml.feature.BertEncoderModel;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every code block of README.md and docs/ runs as the page writes it, read from the page, so a page cannot drift
 * from the code: Java blocks compiled and run against the test JVM's SparkSession ({@link JavaBlocks}), shell
 * blocks through the command line's entry point or bash ({@link ShellBlocks}), Python blocks through
 * {@code /usr/bin/python3}. A page's blocks run in page order in one working directory, so a later block reads
 * what an earlier one wrote. Files a reader brings (texts, weights, a model) are made there first ({@link #SEEDS},
 * each only for a page that names it). Only blocks marked {@code no-test} are not run.
 */
class DocsCodeBlocksTest {

    /**
     * A comma-separated list of pages ({@code docs/training.md,README.md}) to run alone while writing them:
     * {@code -Ddocs.pages=...} on Maven's command line. Unset: every page.
     */
    static final String ONLY_PAGES = "docs.pages";

    /** The inputs the pages' commands name as the reader's own files, and how the test makes each. */
    private static final Map<String, Seed> SEEDS = new LinkedHashMap<>();

    static {
        SEEDS.put("texts.jsonl", dir -> copy("spark-attention/src/test/resources/fixtures/encoder/texts.jsonl", dir));
        SEEDS.put("train.jsonl", dir -> copy("examples/data/sequences/train.jsonl", dir));
        SEEDS.put("tokenizer.json", dir -> Files.write(dir, BundledModels.tokenizerJson(BundledModels.ALL_MINILM_L6_V2)));
        SEEDS.put("model.onnx", dir -> {
            try (InputStream in = DocsCodeBlocksTest.class.getResourceAsStream("/all-minilm-l6-v2.onnx")) {
                Files.copy(in, dir);
            }
        });
        SEEDS.put("model.safetensors", file -> {
            Path saved = file.resolveSibling("bundled-encoder-stage");
            BertEncoderModel.pretrained(BundledModels.ALL_MINILM_L6_V2).write().save(saved.toString());
            Files.copy(saved.resolve("data/encoder.safetensors"), file);
        });
        SEEDS.put("attn.safetensors", file -> DocsGiven.multiHeadAttentionWeights(file.toString(), "self_attn.", 16, 8));
        SEEDS.put("sequences.jsonl", file -> Files.writeString(file, jsonLines(6, 16, false, 1)));
        SEEDS.put("qkv.parquet", file -> {
            Path json = file.resolveSibling("qkv-source.jsonl");
            Files.writeString(json, jsonLines(5, 8, true, 2));
            StructType schema = new StructType();
            for (String c : List.of("query", "key", "value")) {
                schema = schema.add(c, DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.DoubleType)));
            }
            DocsGiven.spark().read().schema(schema).json(json.toString()).write().parquet(file.toString());
        });
    }

    private interface Seed {
        void make(Path file) throws Exception;
    }

    @TempDir
    static Path workRoot;

    @Test
    @DisplayName("every block is java, bash, python or text; only blocks marked no-test are not run")
    void everyBlockIsRunOrMarked() throws IOException {
        int runs = 0;
        List<String> pages = new ArrayList<>();
        for (DocPage page : DocPage.all(DocPage.root())) {
            pages.add(page.name);
            for (DocPage.Block block : page.blocks) {
                assertTrue(DocPage.LANGUAGES.contains(block.language), block + ": a block's language is one of "
                    + DocPage.LANGUAGES + " (a diagram or output is text)");
                assertTrue(block.flags.stream().allMatch(DocPage.NO_TEST::equals), block + ": unknown flag");
                assertFalse(block.language.equals("text") && block.flags.contains(DocPage.NO_TEST),
                    block + ": a text block is not code; no-test is for code");
                assertFalse(block.language.equals("text") && block.code.contains(ShellBlocks.LAUNCHER + " "),
                    block + ": a command in a text block would escape the tests");
                runs += block.runs() ? 1 : 0;
            }
        }
        assertTrue(pages.containsAll(List.of("README.md", "docs/stages.md", "docs/encoders.md", "docs/training.md",
            "docs/command-line.md", "docs/clusters.md")), pages.toString());
        assertTrue(runs >= 15, runs + " blocks run");
    }

    @TestFactory
    @DisplayName("every page's code runs as written")
    List<DynamicNode> everyPageRunsItsBlocks() throws IOException {
        List<DynamicNode> pages = new ArrayList<>();
        String only = System.getProperty(ONLY_PAGES, "");
        for (DocPage page : DocPage.all(DocPage.root())) {
            if (!only.isEmpty() && !List.of(only.split(",")).contains(page.name)) {
                continue;
            }
            List<DynamicNode> blocks = new ArrayList<>();
            Path dir = workRoot.resolve(page.name.replace('/', '_').replace(".md", ""));
            for (DocPage.Block block : page.blocks) {
                if (block.runs()) {
                    blocks.add(DynamicTest.dynamicTest(block.toString(), () -> run(page, block, dir)));
                }
            }
            if (!blocks.isEmpty()) {
                pages.add(DynamicContainer.dynamicContainer(page.name, blocks));
            }
        }
        return pages;
    }

    private static void run(DocPage page, DocPage.Block block, Path dir) throws Exception {
        prepare(page, dir);
        DocsGiven.workDir(dir);
        switch (block.language) {
            case "java" -> JavaBlocks.run(block, dir);
            case "bash" -> ShellBlocks.run(block, dir);
            case "python" -> python(block, dir);
            default -> throw new AssertionError(block + ": no runner for " + block.language);
        }
    }

    /** The page's working directory: the repository's example and library trees linked in, the seeds it names. */
    private static void prepare(DocPage page, Path dir) throws Exception {
        if (Files.isDirectory(dir)) {
            return;
        }
        Files.createDirectories(dir);
        for (String tree : List.of("examples", "spark-attention")) {
            Files.createSymbolicLink(dir.resolve(tree), DocPage.root().resolve(tree));
        }
        for (Map.Entry<String, Seed> seed : SEEDS.entrySet()) {
            boolean named = page.blocks.stream().anyMatch(b -> b.runs() && b.code.contains(seed.getKey()));
            if (named) {
                seed.getValue().make(dir.resolve(seed.getKey()));
            }
        }
    }

    private static void python(DocPage.Block block, Path dir) throws IOException, InterruptedException {
        boolean torch = new ProcessBuilder("/usr/bin/python3", "-c", "import torch, numpy").start()
            .waitFor() == 0;
        if (!torch) {
            System.out.println("SKIPPED " + block + ": /usr/bin/python3 has no torch and numpy "
                + "(Debian: apt-get install python3-torch python3-numpy)");
        }
        Assumptions.assumeTrue(torch, block + ": /usr/bin/python3 has no torch and numpy");
        Path script = dir.resolve("block-" + block.line + ".py");
        JavaBlocks.createRoots(dir);
        Files.writeString(script, JavaBlocks.inWorkDir(block.code, dir));
        Process process = new ProcessBuilder("/usr/bin/python3", script.toString()).directory(dir.toFile())
            .redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(5, TimeUnit.MINUTES), block + ": timed out");
        System.out.print(output);
        assertEquals(0, process.exitValue(), block + ":\n" + output);
    }

    private static void copy(String fromRoot, Path to) throws IOException {
        Files.copy(DocPage.root().resolve(fromRoot), to);
    }

    /** Seeded random sequences as JSON lines: {@code query} L×width, and {@code key}, {@code value} when asked. */
    private static String jsonLines(int rows, int width, boolean keyValue, long seed) {
        Random random = new Random(seed);
        StringBuilder out = new StringBuilder();
        for (int r = 0; r < rows; r++) {
            int length = 2 + random.nextInt(6);
            out.append("{\"id\": ").append(r);
            for (String column : keyValue ? List.of("query", "key", "value") : List.of("query")) {
                out.append(", \"").append(column).append("\": [");
                for (int i = 0; i < length; i++) {
                    out.append(i == 0 ? "[" : ", [");
                    for (int j = 0; j < width; j++) {
                        out.append(j == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.4f", random.nextGaussian()));
                    }
                    out.append(']');
                }
                out.append(']');
            }
            out.append("}\n");
        }
        return out.toString();
    }
}

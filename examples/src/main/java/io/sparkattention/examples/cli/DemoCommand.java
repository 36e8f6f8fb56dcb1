package io.sparkattention.examples.cli;

import io.sparkattention.examples.demo.AttentionDemo;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/** {@code spark-attention demo}: the main job on the bundled Jane Austen corpus (see {@link AttentionDemo}). */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = {"Runs attention over a corpus of books: passages → tokens → Word2Vec embeddings → positions → "
        + "multi-head self-attention → contextual and attention-pooled passage vectors (Parquet), attention "
        + "pictures (PNG + HTML) for a few passages, and the passages nearest to one of them."})
final class DemoCommand implements Callable<Integer> {

    /** Marks a directory the demo wrote, so a rerun may replace it without --overwrite. */
    static final String SUMMARY = "summary.json";

    @Option(names = "--corpus", paramLabel = "DIR",
        description = "Directory of plain-text books, one per file (default: the bundled examples/data/austen).")
    String corpus;

    @Option(names = "--output", paramLabel = "DIR", defaultValue = "demo-output",
        description = "Output directory (default: ${DEFAULT-VALUE}); a previous demo output there is replaced.")
    Path output;

    @Option(names = "--master", paramLabel = "URL", description = "Spark master (default: local[*]).")
    String master;

    @Option(names = "--heads", defaultValue = "4", description = "Attention heads (default: ${DEFAULT-VALUE}).")
    int heads;

    @Option(names = "--dim", defaultValue = "64", description = "Embedding dimension (default: ${DEFAULT-VALUE}).")
    int dim;

    @Option(names = "--pictures", defaultValue = "3", description = "Passages drawn (default: ${DEFAULT-VALUE}).")
    int pictures;

    @Option(names = "--overwrite", description = "Replace an existing output directory that is not a demo output.")
    boolean overwrite;

    @Override
    public Integer call() throws IOException {
        AttentionDemo.Settings settings = new AttentionDemo.Settings();
        settings.corpus = corpusDir();
        settings.output = output.toAbsolutePath().normalize();
        settings.heads = heads;
        settings.dim = dim;
        settings.pictures = pictures;
        if (heads < 1 || dim < 1 || dim % heads != 0) {
            throw new BadInputException("--heads (" + heads + ") must divide --dim (" + dim + ")");
        }
        if (pictures < 0) {
            throw new BadInputException("--pictures must be >= 0, got " + pictures);
        }
        Path parent = settings.output.getParent();
        Files.createDirectories(parent);
        if (!Files.isWritable(parent)) {
            throw new BadInputException(parent + ": output directory is not writable");
        }
        if (Files.exists(settings.output) && !overwrite && !Files.exists(settings.output.resolve(SUMMARY))) {
            throw new BadInputException(settings.output + ": exists and is not a demo output (use --overwrite)");
        }
        // Everything goes to a temporary sibling first: a failed run leaves no half-written output.
        Path staging = parent.resolve("." + settings.output.getFileName() + ".tmp-" + ProcessHandle.current().pid());
        Path finalOutput = settings.output;
        settings.output = staging;
        settings.publishedAs = finalOutput;
        SparkSession spark = SparkSessions.start("spark-attention demo", master);
        try {
            new AttentionDemo(spark, System.out).run(settings);
            deleteRecursively(finalOutput);
            Files.move(staging, finalOutput, StandardCopyOption.ATOMIC_MOVE);
            return 0;
        } finally {
            deleteRecursively(staging);
        }
    }

    private String corpusDir() {
        Path dir;
        if (corpus != null) {
            dir = Paths.get(corpus);
        } else {
            String home = System.getProperty("spark.attention.home", ".");
            dir = Paths.get(home, "examples", "data", "austen");
        }
        if (!Files.isDirectory(dir)) {
            throw new BadInputException((corpus == null ? "bundled corpus " : "--corpus ") + dir + ": no such directory");
        }
        try (Stream<Path> files = Files.list(dir)) {
            if (files.noneMatch(Files::isRegularFile)) {
                throw new BadInputException("--corpus " + dir + ": no files in it");
            }
        } catch (IOException e) {
            throw new BadInputException("--corpus " + dir + ": " + e.getMessage(), e);
        }
        return dir.toAbsolutePath().toString();
    }

    static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }
}

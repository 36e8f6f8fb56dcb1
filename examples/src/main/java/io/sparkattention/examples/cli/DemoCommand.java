package io.sparkattention.examples.cli;

import io.sparkattention.examples.demo.AttentionDemo;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/** {@code spark-attention demo}: the main job on the bundled Jane Austen corpus (see {@link AttentionDemo}). */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = {"Runs attention over a corpus of books: passages → tokens → Word2Vec embeddings → positions → "
        + "multi-head self-attention → contextual and attention-pooled passage vectors (Parquet), attention "
        + "pictures (PNG + HTML) for a few passages, and the passages nearest to one of them."})
final class DemoCommand implements Callable<Integer> {

    @Option(names = "--corpus", paramLabel = "DIR",
        description = "Directory of plain-text books, one per file (default: the bundled examples/data/austen).")
    String corpus;

    @Option(names = "--output", paramLabel = "DIR", defaultValue = "demo-output",
        description = "Output directory (default: ${DEFAULT-VALUE}); its parent must exist. An existing one is "
            + "replaced only with --overwrite, and only if spark-attention wrote it.")
    Path output;

    @Option(names = "--master", paramLabel = "URL", description = "Spark master (default: local[*]).")
    String master;

    @Option(names = "--heads", defaultValue = "4", description = "Attention heads (default: ${DEFAULT-VALUE}).")
    int heads;

    @Option(names = "--dim", defaultValue = "64", description = "Embedding dimension (default: ${DEFAULT-VALUE}).")
    int dim;

    @Option(names = "--pictures", defaultValue = "3", description = "Passages drawn (default: ${DEFAULT-VALUE}).")
    int pictures;

    @Option(names = "--overwrite",
        description = "Replace an existing output directory, only if it is an earlier output of spark-attention.")
    boolean overwrite;

    @Override
    public Integer call() throws IOException {
        if (heads < 1 || dim < 1 || dim % heads != 0) {
            throw new BadInputException("--heads (" + heads + ") must divide --dim (" + dim + ")");
        }
        if (pictures < 0) {
            throw new BadInputException("--pictures must be >= 0, got " + pictures);
        }
        String corpusDir = corpusDir();
        Path target = OutputGuard.of("--output", output.toString(), OutputKind.directory()).overwrite(overwrite)
            .input("--corpus", corpusDir).check();
        AttentionDemo.Settings settings = new AttentionDemo.Settings();
        settings.corpus = corpusDir;
        settings.heads = heads;
        settings.dim = dim;
        settings.pictures = pictures;
        // Everything goes to a hidden sibling first, swapped in when complete: a failed run leaves
        // the earlier output or nothing.
        settings.output = OutputSwap.sibling(target, "tmp");
        settings.publishedAs = target;
        SparkSession spark = SparkSessions.start("spark-attention demo", master);
        try {
            new AttentionDemo(spark, System.out).run(settings);
            OutputSwap.mark(settings.output, "demo");
            OutputSwap.publish(settings.output, target);
            return 0;
        } finally {
            OutputSwap.deleteQuietly(settings.output);
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
}

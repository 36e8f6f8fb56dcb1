package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.stream.Stream;

/**
 * What the two demos ({@code demo}, {@code demo-lm}) share, as a picocli mixin: {@code --corpus}
 * (a directory of plain-text books, by default the bundled Austen novels) and an optional
 * {@code --output} with the demo's own default directory ({@link #defaultOutput}, called from each
 * demo's model transformer).
 */
final class DemoCorpus {

    @Option(names = "--corpus", paramLabel = "DIR",
        description = "Directory of plain-text books, one per file (default: the bundled examples/data/austen).")
    String corpus;

    /** {@code spec} with {@code --output} optional, {@code dir} by default. */
    static CommandSpec defaultOutput(CommandSpec spec, String dir) {
        return OutputOptions.optional(spec, dir, "DIR", "Output directory (default: ${DEFAULT-VALUE}); its parent must "
            + "exist. Never the current directory, an ancestor of it, the home directory or the corpus. Written beside "
            + "it and put in place when complete.");
    }

    /** The corpus directory, absolute: --corpus, or the bundled Austen novels; refused when missing or empty. */
    String dir() {
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

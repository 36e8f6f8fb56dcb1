package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import io.sparkattention.examples.common.OutputKind;
import io.sparkattention.examples.common.Outputs;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.stream.Stream;

/**
 * What the two demos ({@code demo}, {@code demo-lm}) share, as a picocli mixin: {@code --corpus}
 * (a directory of plain-text books, by default the bundled Austen novels), {@code --master} and
 * an optional {@code --output} directory, {@code NAME-output} by default for the demo called NAME
 * (the demos' model transformer, {@link DefaultOutput}).
 */
final class DemoOptions {

    /** {@code --output} is optional in a demo, {@code NAME-output} by default. */
    static final class DefaultOutput implements CommandLine.IModelTransformer {
        @Override
        public CommandSpec transform(CommandSpec spec) {
            return OutputOptions.optional(spec, spec.name() + "-output", "DIR", "Output directory (default: "
                + "${DEFAULT-VALUE}); its parent must exist. Never the current directory, an ancestor of it, the home "
                + "directory or the corpus. Written beside it and put in place when complete.");
        }
    }

    @Option(names = "--corpus", paramLabel = "DIR",
        description = "Directory of plain-text books, one per file (default: the bundled examples/data/austen).")
    String corpus;

    @Mixin
    OutputOptions output;

    @Mixin
    MasterOption master;

    /** The demo's output directory, checked, reading the corpus at {@code corpusDir} ({@link #dir}). */
    Outputs outputs(String corpusDir) {
        return output.plan(OutputKind.directory()).localOnly().input("--corpus", corpusDir).check();
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

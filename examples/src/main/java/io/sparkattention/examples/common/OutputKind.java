package io.sparkattention.examples.common;

import io.sparkattention.io.SafeTensors;
import io.sparkattention.viz.HeatmapPage;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * What a command writes at its output, and how an earlier output of this tool is recognised, so
 * that {@code --overwrite} replaces only that:
 * <ul>
 *   <li>a directory carries the marker file {@value #MARKER} (and, when Spark wrote it, Spark's
 *       {@value #SPARK_SUCCESS});</li>
 *   <li>a JSON lines file is empty or its first record has the command's output column;</li>
 *   <li>a PNG carries the text chunk {@code Software: spark-attention} ({@link PngMark});</li>
 *   <li>an HTML page carries {@code <meta name="generator" content="spark-attention">};</li>
 *   <li>an exported state_dict records {@value #STATE_DICT_FORMAT} as {@code format} in its
 *       safetensors {@code __metadata__}.</li>
 * </ul>
 * An empty directory holds nothing to lose and is replaced too. Anything else at the output (a
 * file or directory of the user's, a symbolic link) is never replaced.
 */
public final class OutputKind {

    /** Marker file in every output directory this tool writes. */
    public static final String MARKER = ".spark-attention-output";
    /** Spark's file for a completed write. */
    public static final String SPARK_SUCCESS = "_SUCCESS";

    /** The {@code format} that {@code AttentionClassificationModel.exportPyTorch} records in its file. */
    public static final String STATE_DICT_FORMAT = "AttentionClassifier state_dict";

    /** Bytes of a PNG or HTML file read to recognise it. */
    private static final int HEAD_BYTES = 4096;

    private final boolean directory;
    private final Function<Path, String> notOurs;

    private OutputKind(boolean directory, Function<Path, String> notOurs) {
        this.directory = directory;
        this.notOurs = notOurs;
    }

    /** A directory Spark writes (part files), marked by this tool. */
    public static OutputKind sparkDirectory() {
        return new OutputKind(true, dir -> {
            String why = notMarkedDirectory(dir);
            if (why == null && !Files.isRegularFile(dir.resolve(SPARK_SUCCESS), LinkOption.NOFOLLOW_LINKS)) {
                why = "it has no " + SPARK_SUCCESS + " file: it is not a complete output of spark-attention";
            }
            return why;
        });
    }

    /** A directory this tool writes file by file (the demo's output, a model directory), marked. */
    public static OutputKind directory() {
        return new OutputKind(true, OutputKind::notMarkedDirectory);
    }

    /** One JSON lines file whose records have {@code column}. */
    public static OutputKind jsonLines(String column) {
        return new OutputKind(false, file -> firstRecordHas(file, column) ? null
            : "its first line is not a JSON record with the column " + column + ", as this command writes");
    }

    /** A PNG picture written by this tool. */
    public static OutputKind png() {
        return new OutputKind(false, file -> PngMark.isMarked(head(file)) ? null
            : "it is not a PNG written by spark-attention (no 'Software: spark-attention' text chunk)");
    }

    /** An HTML page written by this tool. */
    public static OutputKind html() {
        String tag = "<meta name=\"generator\" content=\"" + HeatmapPage.GENERATOR + "\">";
        return new OutputKind(false, file -> new String(head(file), StandardCharsets.UTF_8).contains(tag) ? null
            : "it is not an HTML page written by spark-attention (no " + tag + ")");
    }

    /** A safetensors state_dict exported by this tool ({@code train --export-pytorch}). */
    public static OutputKind stateDict() {
        return stateDict(STATE_DICT_FORMAT);
    }

    /** A safetensors file exported by this tool whose {@code __metadata__} "format" is {@code format}. */
    public static OutputKind stateDict(String format) {
        return new OutputKind(false, file -> {
            try {
                return format.equals(SafeTensors.read(file).metadata().get("format")) ? null
                    : "it is not a state_dict exported by spark-attention (its __metadata__ has no \"format\": \""
                        + format + "\")";
            } catch (IOException e) {
                return "it is not a safetensors file exported by spark-attention (" + e.getMessage() + ")";
            }
        });
    }

    /** Whether the output is a directory (else a file). */
    public boolean isDirectory() {
        return directory;
    }

    /**
     * Why {@code existing} is not an earlier output of this kind, or null when it is one.
     *
     * @param existing an existing path, not a symbolic link
     */
    public String whyNotOurs(Path existing) {
        if (Files.isDirectory(existing, LinkOption.NOFOLLOW_LINKS) != directory) {
            return directory ? "it is a file, and this output is a directory"
                : "it is a directory, and this output is a file";
        }
        if (!directory && !Files.isRegularFile(existing, LinkOption.NOFOLLOW_LINKS)) {
            return "it is not a regular file";
        }
        if (directory && isEmptyDirectory(existing)) {
            return null;
        }
        return notOurs.apply(existing);
    }

    /** An empty directory holds nothing to lose: it may be replaced like an earlier output. */
    private static boolean isEmptyDirectory(Path dir) {
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.findAny().isEmpty();
        } catch (IOException e) {
            return false;
        }
    }

    private static String notMarkedDirectory(Path dir) {
        return Files.isRegularFile(dir.resolve(MARKER), LinkOption.NOFOLLOW_LINKS) ? null
            : "spark-attention did not write it (it has no " + MARKER + " marker file)";
    }

    /**
     * Whether the file is blank, or its first non-blank line is a JSON object with the key
     * {@code column}. The line is scanned as a stream (a record can hold megabytes of matrices
     * before the output column), with Knuth-Morris-Pratt matching of {@code "column":}.
     */
    private static boolean firstRecordHas(Path file, String column) {
        byte[] pattern = ("\"" + column + "\":").getBytes(StandardCharsets.UTF_8);
        int[] fail = new int[pattern.length];
        for (int i = 1, k = 0; i < pattern.length; i++) {
            while (k > 0 && pattern[i] != pattern[k]) {
                k = fail[k - 1];
            }
            if (pattern[i] == pattern[k]) {
                k++;
            }
            fail[i] = k;
        }
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file))) {
            int b = in.read();
            while (b != -1 && Character.isWhitespace(b)) {
                b = in.read();
            }
            if (b == -1) {
                return true;
            }
            if (b != '{') {
                return false;
            }
            for (int k = 0; (b = in.read()) != -1 && b != '\n'; ) {
                while (k > 0 && (byte) b != pattern[k]) {
                    k = fail[k - 1];
                }
                if ((byte) b == pattern[k] && ++k == pattern.length) {
                    return true;
                }
            }
            return false;
        } catch (IOException e) {
            throw new BadInputException(file + ": cannot read it to check what it is: " + e.getMessage(), e);
        }
    }

    private static byte[] head(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            return in.readNBytes(HEAD_BYTES);
        } catch (IOException e) {
            throw new BadInputException(file + ": cannot read it to check what it is: " + e.getMessage(), e);
        }
    }
}

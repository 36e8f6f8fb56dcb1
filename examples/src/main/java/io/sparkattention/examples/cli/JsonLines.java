package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import org.apache.hadoop.fs.Path;

import java.io.BufferedReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * The lines of a JSON lines input read on the driver, without Spark: its first records (the
 * sample its columns are learnt from) and, after a failed read, the line that holds a given
 * record. Files are a directory's data files in name order; compressed files are read through
 * their codec, as Spark reads them. Lines are numbered from 1 in each file, blank ones included,
 * as an editor shows them.
 */
final class JsonLines {

    /** JSON as Spark's reader takes it by default: single quotes and NaN/Infinity allowed. */
    static final JsonMapper JSON = JsonMapper.builder()
        .enable(JsonReadFeature.ALLOW_SINGLE_QUOTES, JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();

    /** Jackson's note of where an array or object began: a place within the line, not in the file. */
    private static final String SOURCE_LOCATION = "\\s*\\(start marker at \\[Source:[^\\]]*\\]\\)";

    /** One non-blank line of a data file. */
    static final class Line {
        final Path file;
        final long number;
        final String text;

        Line(Path file, long number, String text) {
            this.file = file;
            this.number = number;
            this.text = text;
        }
    }

    final String input;
    private final InputTextFiles files;

    private JsonLines(InputTextFiles files) {
        this.input = files.input;
        this.files = files;
    }

    /** The input's data files; {@link InputFiles#inspect} has checked them. */
    static JsonLines of(String input) {
        return new JsonLines(InputTextFiles.of(input));
    }

    /**
     * The first non-blank lines, across files in order: at most {@code maxLines}, and no more
     * once {@code maxChars} characters are read (at least one line, however long).
     */
    List<Line> first(int maxLines, long maxChars) {
        List<Line> out = new ArrayList<>();
        long chars = 0;
        for (Path file : files.files) {
            try (BufferedReader reader = files.open(file)) {
                long number = 0;
                for (String text = reader.readLine(); text != null; text = reader.readLine()) {
                    number++;
                    if (text.isBlank()) {
                        continue;
                    }
                    out.add(new Line(file, number, text));
                    chars += text.length();
                    if (out.size() >= maxLines || chars >= maxChars) {
                        return out;
                    }
                }
            } catch (IOException e) {
                throw new BadInputException("--input " + input + ": cannot read " + file.getName() + " ("
                    + ErrorReporting.oneLine(String.valueOf(e.getMessage())) + ")", e);
            }
        }
        return out;
    }

    /**
     * The first non-blank line that {@code wanted} accepts, in the file Spark names as
     * {@code sparkPath} (a URI, e.g. {@code file:///...}; every file when null), or null when
     * there is none or the file cannot be read.
     */
    Line find(String sparkPath, Predicate<Line> wanted) {
        for (Path file : files.files) {
            if (!files.isNamed(file, sparkPath)) {
                continue;
            }
            try (BufferedReader reader = files.open(file)) {
                long number = 0;
                for (String text = reader.readLine(); text != null; text = reader.readLine()) {
                    number++;
                    Line line = new Line(file, number, text);
                    if (!text.isBlank() && wanted.test(line)) {
                        return line;
                    }
                }
            } catch (IOException e) {
                return null;
            }
        }
        return null;
    }

    /** A line's place for messages: "line N", and the file's name first for a directory. */
    String where(Line line) {
        return files.where(line.file, line.number);
    }

    /**
     * The line parsed as one JSON object.
     *
     * @throws BadInputException naming the input and the line when it is not one
     */
    JsonNode parse(Line line) {
        JsonNode tree;
        try {
            tree = JSON.readTree(line.text);
        } catch (JsonProcessingException e) {
            throw new BadInputException("--input " + input + ": malformed JSON record on " + where(line) + " ("
                + ErrorReporting.oneLine(e.getOriginalMessage()).replaceAll(SOURCE_LOCATION, "") + ")", e);
        }
        if (tree == null || !tree.isObject()) {
            throw new BadInputException("--input " + input + ": malformed JSON record on " + where(line)
                + " (expected a JSON object, found " + (tree == null ? "nothing" : ColumnKind.what(tree)) + ")");
        }
        return tree;
    }
}

package io.sparkattention.examples.demo;

import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

import java.net.URI;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Splits a corpus of plain-text books into passages: paragraphs (blank-line separated, chapter
 * headings dropped), long ones cut at sentence ends so that no passage exceeds
 * {@link #MAX_WORDS} words, short ones (under {@link #MIN_WORDS}) dropped. Each passage keeps its
 * book (the file name) and its position, so a passage can be found again in the text.
 */
public final class Passages {

    /** Longest passage, in words: attention over a passage is L×L, and the pictures stay legible. */
    public static final int MAX_WORDS = 64;
    /** Shortest passage kept, in words: one-line dialogue carries little context. */
    public static final int MIN_WORDS = 12;

    /** Output schema: book, passage number within the book, text. */
    public static final StructType SCHEMA = new StructType()
        .add("book", DataTypes.StringType, false)
        .add("passage", DataTypes.IntegerType, false)
        .add("text", DataTypes.StringType, false);

    private static final Pattern CHAPTER = Pattern.compile("^(CHAPTER|Chapter|VOLUME|Volume)\\b.*");
    private static final Pattern SENTENCE_END = Pattern.compile("(?<=[.!?][\"')_]?)\\s+");
    private static final Pattern WORD = Pattern.compile("\\S+");

    private Passages() {
    }

    /** Reads every text file under {@code dir} (one book per file) into passages. */
    public static Dataset<Row> read(SparkSession spark, String dir) {
        Dataset<Row> books = spark.read().option("wholetext", true).text(dir)
            .selectExpr("input_file_name() AS file", "value");
        return books.flatMap((FlatMapFunction<Row, Row>) row -> split(bookName(row.getString(0)), row.getString(1)),
            Encoders.row(SCHEMA));
    }

    /** The passages of one book's text, as rows of {@link #SCHEMA} ({@code book} names the book). */
    public static Iterator<Row> split(String book, String text) {
        List<Row> out = new ArrayList<>();
        int number = 0;
        for (String paragraph : text.split("\\r?\\n\\s*\\r?\\n")) {
            String flat = paragraph.replaceAll("\\s+", " ").strip();
            if (flat.isEmpty() || CHAPTER.matcher(flat).matches() || flat.equals(flat.toUpperCase(Locale.ROOT))) {
                continue;  // headings, titles, "THE END"
            }
            for (String passage : cut(flat)) {
                if (words(passage) >= MIN_WORDS) {
                    out.add(RowFactory.create(book, number++, passage));
                }
            }
        }
        return out.iterator();
    }

    /** Cuts a paragraph at sentence ends into pieces of at most {@link #MAX_WORDS} words. */
    static List<String> cut(String paragraph) {
        List<String> pieces = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        int currentWords = 0;
        for (String sentence : SENTENCE_END.split(paragraph)) {
            int n = words(sentence);
            if (currentWords > 0 && currentWords + n > MAX_WORDS) {
                pieces.add(current.toString());
                current.setLength(0);
                currentWords = 0;
            }
            if (n > MAX_WORDS) {
                pieces.addAll(cutWords(sentence));  // a run-on sentence: cut at word boundaries
                continue;
            }
            if (current.length() > 0) {
                current.append(' ');
            }
            current.append(sentence);
            currentWords += n;
        }
        if (currentWords > 0) {
            pieces.add(current.toString());
        }
        return pieces;
    }

    private static List<String> cutWords(String sentence) {
        List<String> pieces = new ArrayList<>();
        String[] words = sentence.split(" ");
        for (int i = 0; i < words.length; i += MAX_WORDS) {
            pieces.add(String.join(" ", Arrays.copyOfRange(words, i, Math.min(words.length, i + MAX_WORDS))));
        }
        return pieces;
    }

    private static int words(String s) {
        Matcher m = WORD.matcher(s);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }

    /** "file:/.../pride_and_prejudice.txt" → "pride_and_prejudice". */
    static String bookName(String file) {
        String name = Paths.get(URI.create(file).getPath()).getFileName().toString();
        int dot = name.lastIndexOf('.');
        return dot > 0 ? name.substring(0, dot) : name;
    }
}

package io.sparkattention.examples.bench;

import io.sparkattention.examples.demo.Passages;
import org.apache.spark.sql.Row;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The fine-tuning benchmark's step: B of the demo's Austen passages, evenly spaced through the
 * books (file-name order), each labelled with its book's index, tokenized by the bundled
 * tokenizer ([CLS] … [SEP], unpadded). Every step of every contender trains on this batch.
 *
 * @param ids     each text's token ids
 * @param labels  each text's book, in [0, classes)
 * @param classes the books in the corpus
 */
public record FineTuneBatch(int[][] ids, int[] labels, int classes) {

    /**
     * {@code rows} passages of the books under {@code corpus}.
     *
     * @throws IllegalArgumentException when the corpus has fewer than two books or fewer passages than rows
     */
    public static FineTuneBatch austen(Path corpus, int rows) {
        List<String> texts = new ArrayList<>();
        List<Integer> books = new ArrayList<>();
        int book = 0;
        try (Stream<Path> files = Files.list(corpus)) {
            for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
                String name = file.getFileName().toString().replaceFirst("\\.[^.]*$", "");
                Iterator<Row> passages = Passages.split(name, Files.readString(file, StandardCharsets.UTF_8));
                while (passages.hasNext()) {
                    texts.add(passages.next().getString(2));
                    books.add(book);
                }
                book++;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("corpus " + corpus + ": " + e.getMessage(), e);
        }
        if (book < 2) {
            throw new IllegalArgumentException("corpus " + corpus + " has " + book + " books; the labels need two or more");
        }
        if (texts.size() < rows) {
            throw new IllegalArgumentException("corpus " + corpus + " has " + texts.size() + " passages, fewer than "
                + rows);
        }
        List<String> chosen = new ArrayList<>(rows);
        int[] labels = new int[rows];
        for (int i = 0; i < rows; i++) {
            int at = (int) ((long) i * texts.size() / rows);
            chosen.add(texts.get(at));
            labels[i] = books.get(at);
        }
        return new FineTuneBatch(BundledMiniLm.tokenize(chosen), labels, book);
    }

    /** The batch's own tokens ([CLS] and [SEP] included, no padding). */
    public long tokens() {
        long n = 0;
        for (int[] row : ids) {
            n += row.length;
        }
        return n;
    }

    public int rows() {
        return ids.length;
    }
}

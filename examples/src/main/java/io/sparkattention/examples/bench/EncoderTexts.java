package io.sparkattention.examples.bench;

import io.sparkattention.examples.demo.Passages;
import org.apache.spark.sql.Row;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * The encoder benchmark's inputs: N texts as token ids ([CLS] … [SEP], unpadded), in input order.
 * Either the demo's Austen passages ({@link Passages}) tokenized by the bundled tokenizer, N of
 * them evenly spaced through the corpus (so their lengths follow the corpus' distribution and
 * their order is the books' order), or N sequences of one fixed length with seeded random ids.
 */
public final class EncoderTexts {

    /** Seed of the fixed-length sequences' ids. */
    static final long SEED = 42;
    /** The WordPiece ids of [CLS] and [SEP] in the bundled vocabulary (BERT's uncased one). */
    static final int CLS = 101, SEP = 102;
    /** Random ids are drawn from [FIRST_WORD_ID, VOCAB): past the special and unused tokens. */
    static final int FIRST_WORD_ID = 1996, VOCAB = 30522;

    private final String source;
    private final List<String> texts;
    private final int[][] ids;

    private EncoderTexts(String source, List<String> texts, int[][] ids) {
        this.source = source;
        this.texts = texts;
        this.ids = ids;
    }

    /**
     * {@code count} passages of the books under {@code corpus}, evenly spaced through all of them
     * (books in file-name order), tokenized by the bundled tokenizer.
     *
     * @throws IllegalArgumentException when the corpus has fewer passages than {@code count}
     */
    public static EncoderTexts austen(Path corpus, int count) {
        return austen(corpus, count, BundledMiniLm::tokenize);
    }

    /**
     * {@code count} passages of the books under {@code corpus}, evenly spaced through all of them
     * (books in file-name order), tokenized by {@code tokenizer} (texts to ids, in order).
     *
     * @throws IllegalArgumentException when the corpus has fewer passages than {@code count}
     */
    public static EncoderTexts austen(Path corpus, int count, Function<List<String>, int[][]> tokenizer) {
        List<String> all = passages(corpus);
        if (all.size() < count) {
            throw new IllegalArgumentException("corpus " + corpus + " has " + all.size() + " passages, fewer than "
                + count);
        }
        List<String> chosen = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            chosen.add(all.get((int) ((long) i * all.size() / count)));
        }
        return new EncoderTexts("austen", chosen, tokenizer.apply(chosen));
    }

    /** Texts given as their ids (read, not copied), labelled {@code source}. */
    static EncoderTexts of(String source, int[][] ids) {
        return new EncoderTexts(source, null, ids);
    }

    /** {@code count} sequences of {@code length} tokens: [CLS], seeded random word ids, [SEP]. */
    public static EncoderTexts fixed(int length, int count) {
        if (length < 2) {
            throw new IllegalArgumentException("a fixed length holds [CLS] and [SEP]: at least 2, got " + length);
        }
        SplittableRandom random = new SplittableRandom(SEED + length);
        int[][] ids = new int[count][length];
        for (int[] row : ids) {
            row[0] = CLS;
            for (int j = 1; j < length - 1; j++) {
                row[j] = random.nextInt(FIRST_WORD_ID, VOCAB);
            }
            row[length - 1] = SEP;
        }
        return new EncoderTexts("fixed", null, ids);
    }

    /** Every passage of every book under {@code corpus}, books in file-name order. */
    static List<String> passages(Path corpus) {
        List<String> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(corpus)) {
            for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
                String name = file.getFileName().toString().replaceFirst("\\.[^.]*$", "");
                Iterator<Row> rows = Passages.split(name, Files.readString(file, StandardCharsets.UTF_8));
                rows.forEachRemaining(r -> out.add(r.getString(2)));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("corpus " + corpus + ": " + e.getMessage(), e);
        }
        return out;
    }

    /** "austen" or "fixed". */
    public String source() {
        return source;
    }

    /** The texts (null for fixed-length sequences). */
    public List<String> texts() {
        return texts;
    }

    /** Token ids per text, in input order (not copied: read only). */
    int[][] ids() {
        return ids;
    }

    public int count() {
        return ids.length;
    }

    /** Tokens over all texts. */
    public long tokens() {
        long n = 0;
        for (int[] row : ids) {
            n += row.length;
        }
        return n;
    }

    public int maxLength() {
        return Arrays.stream(ids).mapToInt(r -> r.length).max().orElse(0);
    }

    public int minLength() {
        return Arrays.stream(ids).mapToInt(r -> r.length).min().orElse(0);
    }

    public double meanLength() {
        return ids.length == 0 ? 0 : (double) tokens() / ids.length;
    }
}

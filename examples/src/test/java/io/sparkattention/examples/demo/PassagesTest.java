package io.sparkattention.examples.demo;

import org.apache.spark.sql.Row;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How books become passages. */
class PassagesTest {

    private static final String TEN = "one two three four five six seven eight nine ten";

    @Test
    @DisplayName("paragraphs become passages; headings, titles and short lines are dropped")
    void paragraphs() {
        String book = "PRIDE AND PREJUDICE\n\nChapter 1\n\n\nIt is a truth universally acknowledged, that a single man in\n"
            + "possession of a good fortune, must be in want of a wife.\n\n\"Short line,\" said he.\n\nTHE END\n";
        List<Row> rows = list(Passages.split("pp", book));
        assertEquals(1, rows.size());
        assertEquals("pp", rows.get(0).getString(0));
        assertEquals(0, rows.get(0).getInt(1));
        assertEquals("It is a truth universally acknowledged, that a single man in possession of a good fortune, "
            + "must be in want of a wife.", rows.get(0).getString(2));
    }

    @Test
    @DisplayName("long paragraphs are cut at sentence ends into passages of at most MAX_WORDS words")
    void longParagraphs() {
        StringBuilder paragraph = new StringBuilder();
        for (int i = 0; i < 20; i++) {
            paragraph.append(TEN).append(". ");
        }
        List<String> pieces = Passages.cut(paragraph.toString().strip());
        assertEquals(4, pieces.size(), "200 words in sentences of 10 → 60 + 60 + 60 + 20");
        for (String piece : pieces) {
            assertTrue(piece.split(" ").length <= Passages.MAX_WORDS, piece);
            assertTrue(piece.endsWith("."), piece);
        }
        String runOn = (TEN + " ").repeat(13).strip();
        List<String> cut = Passages.cut(runOn);
        assertEquals(List.of(Passages.MAX_WORDS, 130 - Passages.MAX_WORDS * 2, 2).get(0), cut.get(0).split(" ").length);
        assertEquals(130, cut.stream().mapToInt(p -> p.split(" ").length).sum());
    }

    @Test
    @DisplayName("a file URI names its book")
    void bookNames() {
        assertEquals("pride_and_prejudice", Passages.bookName("file:/data/austen/pride_and_prejudice.txt"));
        assertEquals("emma", Passages.bookName("file:///x/emma"));
    }

    private static List<Row> list(Iterator<Row> it) {
        List<Row> out = new ArrayList<>();
        it.forEachRemaining(out::add);
        return out;
    }
}

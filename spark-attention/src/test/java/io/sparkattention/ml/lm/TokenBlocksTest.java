package io.sparkattention.ml.lm;

import io.sparkattention.gpt.GptTokenizers;
import io.sparkattention.gpt.TokenBlock;
import io.sparkattention.testing.RootCause;
import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A language model's sequences from its rows: packing as Hugging Face's {@code run_clm} groups
 * texts (rows joined by the end-of-text id, cut into blocks, the last partial block dropped), each
 * row one sequence without packing, the held-out split by index, and bad rows named by their
 * position — the same blocks under any partitioning of the input.
 */
class TokenBlocksTest {

    private static final int VOCAB = 50;
    private static final int EOS = 49;

    /** Rows of ragged ids, one of them empty. */
    private static int[][] rows() {
        int[][] rows = new int[23][];
        for (int r = 0; r < rows.length; r++) {
            rows[r] = new int[r % 7 == 3 ? 0 : 1 + (r * 5) % 13];
            for (int i = 0; i < rows[r].length; i++) {
                rows[r][i] = (r * 11 + i * 3) % (VOCAB - 1);
            }
        }
        return rows;
    }

    /** The reference: the rows' ids joined by the separator (none when negative), cut into blocks of B. */
    private static List<int[]> reference(int[][] rows, int blockSize, int separator) {
        List<Integer> stream = new ArrayList<>();
        for (int r = 0; r < rows.length; r++) {
            if (r > 0 && separator >= 0) {
                stream.add(separator);
            }
            for (int id : rows[r]) {
                stream.add(id);
            }
        }
        List<int[]> blocks = new ArrayList<>();
        for (int k = 0; (k + 1) * blockSize <= stream.size(); k++) {
            blocks.add(stream.subList(k * blockSize, (k + 1) * blockSize).stream().mapToInt(Integer::intValue).toArray());
        }
        return blocks;
    }

    private static List<TokenBlock> packed(Dataset<Row> frame, int blockSize, int separator) {
        try (TrainingIds ids = TrainingIds.read(frame, "input_ids", "input_ids", "row", VOCAB, Integer.MAX_VALUE, "",
            separator >= 0 ? 1 : 0)) {
            TokenBlocks.Keyed packed = TokenBlocks.packed(ids, blockSize, separator);
            List<TokenBlock> blocks = packed.blocks().collect();
            assertEquals(blocks.size(), packed.count());
            return blocks;
        }
    }

    @Test
    @DisplayName("packing joins the rows with the end-of-text id and cuts blocks of B, the last partial one dropped, "
        + "keys 0, 1, ... in stream order, the same under 1, 3 and 7 input partitions")
    void packsAsRunClm() {
        int[][] rows = rows();
        for (int separator : new int[] {EOS, TokenizerFile.NONE}) {
            List<int[]> expected = reference(rows, 8, separator);
            for (int partitions : new int[] {1, 3, 7}) {
                List<TokenBlock> got = packed(LmRows.frame(rows, partitions), 8, separator);
                assertEquals(expected.size(), got.size(), partitions + " partitions");
                for (int k = 0; k < got.size(); k++) {
                    assertEquals(k, got.get(k).key(), "keys follow the stream");
                    assertArrayEquals(expected.get(k), got.get(k).ids(), "block " + k + ", " + partitions
                        + " partitions, separator " + separator);
                    assertEquals(1.0, got.get(k).weight());
                }
            }
        }
    }

    @Test
    @DisplayName("a held-out side keeps its sequences renumbered 0, 1, ... and lays them out in partitions of "
        + "consecutive keys, in key order")
    void sideAndLayout() {
        int[][] rows = rows();
        try (TrainingIds ids = TrainingIds.read(LmRows.frame(rows, 3), "input_ids", "input_ids", "row", VOCAB,
            Integer.MAX_VALUE, "", 1)) {
            TokenBlocks.Keyed all = TokenBlocks.packed(ids, 4, EOS);
            List<TokenBlock> every = all.blocks().collect();
            HeldOut split = new HeldOut(0.25);
            for (boolean heldOut : new boolean[] {false, true}) {
                TokenBlocks.Keyed side = TokenBlocks.side(all, split, heldOut);
                try (TokenBlocks.Laid laid = TokenBlocks.layOut(side, 4, "test")) {
                    assertEquals(4, laid.blocks().getNumPartitions());
                    List<TokenBlock> got = laid.blocks().collect();
                    assertEquals(side.count(), got.size());
                    int k = 0;
                    for (TokenBlock b : every) {
                        if (split.isHeldOut(b.key()) == heldOut) {
                            assertEquals(k, got.get(k).key());
                            assertArrayEquals(b.ids(), got.get(k++).ids());
                        }
                    }
                }
            }
        }
    }

    @Test
    @DisplayName("rows too short for one block are refused, saying how many ids they make")
    void tooShortForABlock() {
        Exception e = assertThrows(IllegalArgumentException.class,
            () -> packed(LmRows.frame(new int[][] {{1, 2}, {3}}, 1), 8, EOS));
        assertTrue(e.getMessage().contains("4 token ids") && e.getMessage().contains("blockSize 8"), e.getMessage());
    }

    @Test
    @DisplayName("without packing each row is one sequence keyed by its row index; a row past the positions, an "
        + "empty row and an id outside the vocabulary are refused naming the row from 1 and the column")
    void rowsAsSequences() {
        int[][] rows = {{1, 2, 3}, {4}, {5, 6, 7, 8, 9}};
        try (TrainingIds ids = TrainingIds.read(LmRows.frame(rows, 2), "input_ids", "input_ids", "row", VOCAB, 5,
            "more than 5", 0)) {
            List<TokenBlock> got = TokenBlocks.sequences(ids).blocks().collect();
            for (int r = 0; r < rows.length; r++) {
                assertArrayEquals(rows[r], got.get(r).ids());
                assertEquals(r, got.get(r).key());
            }
        }
        String tooLong = RootCause.message(assertThrows(Exception.class, () -> TrainingIds.read(
            LmRows.frame(new int[][] {{1}, {1, 2, 3, 4, 5, 6}}, 2), "input_ids", "input_ids", "row", VOCAB, 5,
            "more than the model's 5 positions", 0)));
        assertTrue(tooLong.startsWith("row 2: column input_ids has 6 token ids, more than the model's 5 positions"),
            tooLong);
        String empty = RootCause.message(assertThrows(Exception.class, () -> TrainingIds.read(
            LmRows.frame(new int[][] {{1}, {2}, {}}, 3), "input_ids", "input_ids", "row", VOCAB, 5, "", 0)));
        assertTrue(empty.startsWith("row 3: column input_ids has no token ids"), empty);
        String outside = RootCause.message(assertThrows(Exception.class, () -> TrainingIds.read(
            LmRows.frame(new int[][] {{1}, {2, VOCAB}}, 1), "input_ids", "input_ids", "validation row", VOCAB,
            Integer.MAX_VALUE, "", 1)));
        assertTrue(outside.startsWith("validation row 2: column input_ids: token id 50 at position 1 is outside"),
            outside);
    }

    @Test
    @DisplayName("the held-out split: for F = 0.1 every 10th sequence, each side's keys renumbered 0, 1, 2, ...")
    void heldOut() {
        HeldOut split = new HeldOut(0.1);
        List<Long> held = new ArrayList<>();
        long training = 0;
        for (long k = 0; k < 45; k++) {
            if (split.isHeldOut(k)) {
                assertEquals(held.size(), split.key(k));
                held.add(k);
            } else {
                assertEquals(training++, split.key(k));
            }
        }
        assertEquals(List.of(9L, 19L, 29L, 39L), held);
        HeldOut none = new HeldOut(0);
        assertFalse(none.isHeldOut(0) || none.isHeldOut(123456789));
        HeldOut third = new HeldOut(1 / 3.0);
        long count = 0;
        for (long k = 0; k < 3000; k++) {
            count += third.isHeldOut(k) ? 1 : 0;
        }
        assertEquals(1000, count);
        assertThrows(IllegalArgumentException.class, () -> new HeldOut(1));
    }

    @Test
    @DisplayName("a tokenizer's end-of-text id (GPT-2's 50256; none in the byte tokenizer) and vocabulary (50,257; 256)")
    void tokenizerFiles() {
        assertEquals(50256, TokenizerFile.endOfText(GptTokenizers.read(GptTokenizers.GPT2)));
        assertEquals(TokenizerFile.NONE, TokenizerFile.endOfText(GptTokenizers.read(GptTokenizers.BYTES)));
        assertEquals(TokenizerFile.NONE, TokenizerFile.endOfText(null));
        assertEquals(50257, TokenizerFile.vocabSize(GptTokenizers.read(GptTokenizers.GPT2)));
        assertEquals(256, TokenizerFile.vocabSize(GptTokenizers.read(GptTokenizers.BYTES)));
    }
}

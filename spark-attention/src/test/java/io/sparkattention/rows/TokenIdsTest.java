package io.sparkattention.rows;

import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The one token-id check: every stage's rule is a length bound and a null policy over the same checks. */
class TokenIdsTest {

    private static final TokenIds INTS = new TokenIds("input_ids", false, true, 10);

    private static String refused(TokenIds check, Object value, int min, int max) {
        return assertThrows(RowDataException.class, () -> check.read(value, min, max)).getMessage();
    }

    @Test
    @DisplayName("array<int> and array<bigint> read to the same ids")
    void readsIntsAndLongs() {
        assertArrayEquals(new int[] {1, 9, 0}, INTS.read(UnsafeArrayData.fromPrimitiveArray(new int[] {1, 9, 0}), 1, 5));
        TokenIds longs = new TokenIds("input_ids", true, true, 10);
        assertArrayEquals(new int[] {1, 9, 0},
            longs.read(UnsafeArrayData.fromPrimitiveArray(new long[] {1, 9, 0}), 1, 5));
    }

    @Test
    @DisplayName("an id outside the vocabulary is named with its column, value and position, also beyond int's range")
    void namesTheBadId() {
        assertEquals("column input_ids: token id 10 at position 1 is outside the model's vocabulary [0, 10)",
            refused(INTS, UnsafeArrayData.fromPrimitiveArray(new int[] {1, 10}), 1, 5));
        assertEquals("column input_ids: token id -3 at position 0 is outside the model's vocabulary [0, 10)",
            refused(INTS, UnsafeArrayData.fromPrimitiveArray(new int[] {-3}), 1, 5));
        TokenIds longs = new TokenIds("ids", true, true, 10);
        assertEquals("column ids: token id 4294967296 at position 2 is outside the model's vocabulary [0, 10)",
            refused(longs, UnsafeArrayData.fromPrimitiveArray(new long[] {1, 2, 1L << 32}), 1, 5));
        assertEquals("column input_ids: token id 12 at position 0 is outside the model's vocabulary [0, 10)",
            assertThrows(RowDataException.class, () -> INTS.check(new int[] {12}, 1, 5)).getMessage());
    }

    @Test
    @DisplayName("a null id is named by position; a null array is an error or a row without outputs")
    void nulls() {
        assertEquals("column input_ids has a null token id at position 1",
            refused(INTS, new GenericArrayData(new Object[] {1, null}), 1, 5));
        assertEquals("column input_ids is null (handleInvalid = error; skip drops such rows, keep gives null outputs)",
            refused(INTS, null, 1, 5));
        assertNull(new TokenIds("input_ids", false, false, 10).read(null, 1, 5));
    }

    @Test
    @DisplayName("the length bounds are the caller's: at least min ids, at most max with the caller's reason")
    void lengthBounds() {
        assertEquals("column input_ids has 0 token ids; a row needs at least 1",
            refused(INTS, UnsafeArrayData.fromPrimitiveArray(new int[0]), 1, 5));
        assertArrayEquals(new int[0], INTS.read(UnsafeArrayData.fromPrimitiveArray(new int[0]), 0, 5));
        assertEquals("column input_ids has 3 token ids, more than the model's 2 positions",
            refused(INTS, UnsafeArrayData.fromPrimitiveArray(new int[] {1, 2, 3}), 1, 2));
        assertEquals("column input_ids has 3 token ids, more than the 2 a prompt may have",
            assertThrows(RowDataException.class, () -> INTS.read(UnsafeArrayData.fromPrimitiveArray(
                new int[] {1, 2, 3}), 1, 2, "more than the 2 a prompt may have")).getMessage());
    }
}

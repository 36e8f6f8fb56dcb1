package io.sparkattention.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** PyTorch's "true = blocked" masks become this project's "true = may attend" and key lengths. */
class PyTorchMasksTest {

    @Test
    void blockedBecomesAllowed() {
        boolean[] causalBlocked = {false, true, true, false, false, true, false, false, false};
        assertArrayEquals(new boolean[] {true, false, false, true, true, false, true, true, true},
            PyTorchMasks.allowedFromPyTorchBlocked(causalBlocked));
        assertArrayEquals(new boolean[0], PyTorchMasks.allowedFromPyTorchBlocked(new boolean[0]));
    }

    @Test
    void suffixPaddingBecomesAKeyLength() {
        assertEquals(3, PyTorchMasks.keyLengthFromPaddingMask(new boolean[] {false, false, false, true, true}));
        assertEquals(5, PyTorchMasks.keyLengthFromPaddingMask(new boolean[] {false, false, false, false, false}));
        assertEquals(0, PyTorchMasks.keyLengthFromPaddingMask(new boolean[] {true, true}), "all padding: length 0");
        assertEquals(0, PyTorchMasks.keyLengthFromPaddingMask(new boolean[0]));
    }

    @Test
    void paddingInTheMiddleHasNoKeyLength() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> PyTorchMasks.keyLengthFromPaddingMask(new boolean[] {false, true, false}));
        assertTrue(e.getMessage().contains("key 1 is padding but key 2 is not"), e.getMessage());
    }

    @Test
    void batchOfRowsNamesTheOffendingRow() {
        boolean[] mask = {
            false, false, false,
            false, true, true,
            true, true, true};
        assertArrayEquals(new int[] {3, 1, 0}, PyTorchMasks.keyLengthsFromPaddingMask(mask, 3, 3));
        boolean[] bad = {false, false, false, true, false, true};
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> PyTorchMasks.keyLengthsFromPaddingMask(bad, 2, 3));
        assertTrue(e.getMessage().contains("row 1"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> PyTorchMasks.keyLengthsFromPaddingMask(mask, 2, 3));
    }
}

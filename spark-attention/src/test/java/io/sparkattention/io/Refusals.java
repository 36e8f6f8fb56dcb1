package io.sparkattention.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the fuzz tests of the readers accept as a refusal, and how much memory a read may take:
 * the bytes a reader was given, and no more.
 */
final class Refusals {

    private Refusals() {
    }

    /** A reader's refusal names the source first and says what is wrong after it. */
    static void assertNamesSource(TensorFormatException e, String source) {
        String message = e.getMessage();
        assertNotNull(message, "a refusal without a message");
        assertEquals(source, e.source(), message);
        assertTrue(message.startsWith(source + ": "), message);
        assertFalse(e.problem() == null || e.problem().isBlank(), () -> "a refusal without a problem: " + message);
    }

    /** An argument refusal explains itself. */
    static void assertExplained(IllegalArgumentException e) {
        assertFalse(e.getMessage() == null || e.getMessage().isBlank(), () -> "an empty message: " + e);
    }

    /**
     * An array a reader returned is backed by bytes of the input: {@code elements} values of
     * {@code width} bytes each fit in the {@code inputLength} bytes it was read from.
     */
    static void assertBackedByInput(long elements, int width, long inputLength, String what) {
        assertTrue(elements * width <= inputLength, () -> what + ": " + elements + " values of " + width
            + " bytes from an input of " + inputLength + " bytes");
    }
}

package io.sparkattention.io;

import java.util.Objects;

/**
 * The one place where PyTorch's mask polarity is converted to this project's.
 *
 * <p>{@code nn.MultiheadAttention} takes boolean masks where <b>true means blocked</b> (an
 * {@code attn_mask} entry that may not be attended, a {@code key_padding_mask} entry that is
 * padding). This project follows {@code scaled_dot_product_attention}: <b>true means may attend</b>,
 * and key padding is a per-row key length. Float (additive) masks mean the same in both and need no
 * conversion.
 */
public final class PyTorchMasks {

    private PyTorchMasks() {
    }

    /**
     * Converts an {@code nn.MultiheadAttention} boolean {@code attn_mask} (true = blocked) into
     * this project's polarity (true = may attend), element by element, in a new array.
     *
     * @param blocked PyTorch's mask, any shape, flattened
     * @return the negation of {@code blocked}
     */
    public static boolean[] allowedFromPyTorchBlocked(boolean[] blocked) {
        Objects.requireNonNull(blocked, "blocked");
        boolean[] allowed = new boolean[blocked.length];
        for (int i = 0; i < blocked.length; i++) {
            allowed[i] = !blocked[i];
        }
        return allowed;
    }

    /**
     * Converts one row of a {@code key_padding_mask} (true = padding) into a key length. Only a
     * suffix mask — valid keys first, then padding to the end — has a length; a row with padding
     * in the middle is refused, not approximated. A row of padding only gives 0 (every query of
     * the row is then fully masked and its output is zero).
     *
     * @param keyPaddingMask one row, S entries
     * @return the number of leading non-padding keys
     * @throws IllegalArgumentException when a non-padding key follows a padding one
     */
    public static int keyLengthFromPaddingMask(boolean[] keyPaddingMask) {
        Objects.requireNonNull(keyPaddingMask, "keyPaddingMask");
        return keyLength(keyPaddingMask, 0, keyPaddingMask.length, -1);
    }

    /**
     * Converts a B×S {@code key_padding_mask} (true = padding), row-major, into B key lengths, as
     * {@link #keyLengthFromPaddingMask(boolean[])} does for each row.
     *
     * @param keyPaddingMask the mask, {@code batch × keys} entries
     * @param batch          B, the number of rows
     * @param keys           S, the number of keys per row
     * @return the key length of every row
     * @throws IllegalArgumentException when the size is not {@code batch × keys}, or a row is not
     *     a suffix mask (the message names the row)
     */
    public static int[] keyLengthsFromPaddingMask(boolean[] keyPaddingMask, int batch, int keys) {
        Objects.requireNonNull(keyPaddingMask, "keyPaddingMask");
        if (batch < 0 || keys < 0 || keyPaddingMask.length != (long) batch * keys) {
            throw new IllegalArgumentException("key_padding_mask has " + keyPaddingMask.length
                + " entries, expected batch×keys = " + batch + "×" + keys);
        }
        int[] lengths = new int[batch];
        for (int b = 0; b < batch; b++) {
            lengths[b] = keyLength(keyPaddingMask, b * keys, keys, b);
        }
        return lengths;
    }

    private static int keyLength(boolean[] mask, int offset, int keys, int row) {
        int length = 0;
        while (length < keys && !mask[offset + length]) {
            length++;
        }
        for (int j = length + 1; j < keys; j++) {
            if (!mask[offset + j]) {
                throw new IllegalArgumentException("key_padding_mask" + (row >= 0 ? " row " + row : "")
                    + " is not a suffix mask: key " + length + " is padding but key " + j
                    + " is not; only trailing padding has a key length");
            }
        }
        return length;
    }
}

package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import io.sparkattention.kernel.Heads;

/**
 * The heads rule ({@link Heads}) on command-line options: the library's message, naming the
 * options, as a {@link BadInputException} (exit code 2).
 */
final class HeadsOptions {

    private HeadsOptions() {
    }

    /**
     * {@code heads} divides {@code width}: "--num-heads (3) must divide --dim (64)" plus {@code context}.
     *
     * @throws BadInputException when it does not
     */
    static void checkDivides(int width, int heads, String headsOption, String widthName, String context) {
        try {
            Heads.headDim(width, heads, headsOption, widthName, context);
        } catch (IllegalArgumentException e) {
            throw new BadInputException(e.getMessage(), e);
        }
    }

    /**
     * Grouped-query heads: "--num-kv-heads (3) must divide --num-heads (4)".
     *
     * @throws BadInputException when {@code kvHeads} is not ≥ 1 or does not divide {@code heads}
     */
    static void checkGroups(int heads, int kvHeads, String headsOption, String kvHeadsOption) {
        try {
            Heads.checkGroups(heads, kvHeads, headsOption, kvHeadsOption);
        } catch (IllegalArgumentException e) {
            throw new BadInputException(e.getMessage(), e);
        }
    }
}

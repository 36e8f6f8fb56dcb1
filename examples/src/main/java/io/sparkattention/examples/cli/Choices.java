package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import java.util.List;
import java.util.Locale;

/**
 * Options whose value is one of a fixed list: checked while the command line is read, before
 * Spark starts, with the valid values in the message.
 */
final class Choices {

    private Choices() {
    }

    /**
     * The value, lower-cased, when it is one of {@code valid}.
     *
     * @param option the option, e.g. {@code --strategy}
     * @param value  what the user gave
     * @param valid  the accepted values, in the order the message lists them
     * @throws BadInputException "--strategy: expected one of auto, batch, head, sequence, got 'heads'"
     */
    static String check(String option, String value, List<String> valid) {
        String v = value == null ? "" : value.strip().toLowerCase(Locale.ROOT);
        if (!valid.contains(v)) {
            throw new BadInputException(option + ": expected one of " + String.join(", ", valid) + ", got '" + value + "'");
        }
        return v;
    }
}

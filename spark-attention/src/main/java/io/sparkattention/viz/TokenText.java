package io.sparkattention.viz;

import java.util.ArrayList;
import java.util.List;

/** How tokens are shown: visible, one line, never empty. */
final class TokenText {

    /** Shown for an empty or whitespace-only token (U+2423 OPEN BOX), which would otherwise be invisible. */
    static final String BLANK = "\u2423";
    /** Shown for a null token. */
    static final String NULL = "(null)";

    private TokenText() {
    }

    /** The display text of each token. */
    static List<String> display(List<String> tokens) {
        List<String> shown = new ArrayList<>(tokens.size());
        for (String token : tokens) {
            shown.add(display(token));
        }
        return shown;
    }

    /** Control characters (tabs, newlines...) become spaces; blank tokens become {@link #BLANK}. */
    static String display(String token) {
        if (token == null) {
            return NULL;
        }
        StringBuilder out = new StringBuilder(token.length());
        token.codePoints().forEach(cp -> out.appendCodePoint(Character.isISOControl(cp) ? ' ' : cp));
        String s = out.toString().strip();
        return s.isEmpty() ? BLANK : s;
    }

    /** "0", "1", … for a sequence without tokens. */
    static List<String> indices(int n) {
        List<String> labels = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            labels.add(Integer.toString(i));
        }
        return labels;
    }
}

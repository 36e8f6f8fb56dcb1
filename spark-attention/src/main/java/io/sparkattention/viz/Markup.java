package io.sparkattention.viz;

/** Escaping for text placed in SVG and HTML (both parsed as XML-compatible markup). */
final class Markup {

    private Markup() {
    }

    /**
     * {@code text} with {@code & < > " '} escaped and the control characters XML 1.0 forbids
     * dropped (a stray control character would make the SVG unparseable).
     */
    static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++) {
            char ch = text.charAt(i);
            switch (ch) {
                case '&':
                    out.append("&amp;");
                    break;
                case '<':
                    out.append("&lt;");
                    break;
                case '>':
                    out.append("&gt;");
                    break;
                case '"':
                    out.append("&quot;");
                    break;
                case '\'':
                    out.append("&#39;");
                    break;
                default:
                    if (ch >= 0x20 || ch == '\t' || ch == '\n' || ch == '\r') {
                        if (ch != 0xfffe && ch != 0xffff) {
                            out.append(ch);
                        }
                    }
            }
        }
        return out.toString();
    }

    /** {@code 0xRRGGBB} as {@code #rrggbb}. */
    static String hex(int rgb) {
        return String.format("#%06x", rgb & 0xffffff);
    }
}

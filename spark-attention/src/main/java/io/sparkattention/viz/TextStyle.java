package io.sparkattention.viz;

import java.awt.Font;
import java.awt.font.FontRenderContext;
import java.awt.font.LineMetrics;

/**
 * A font size, weight and colour, with the metrics the layout needs. PNG and SVG share one layout,
 * so both measure text with Java 2D's metrics of the same font; the SVG names that font first and
 * metric-compatible fallbacks after it.
 */
final class TextStyle {

    /** DejaVu Sans ships with every Debian/Ubuntu JDK's font dependency and covers most scripts. */
    static final String FONT_FAMILY = "DejaVu Sans";

    /** The SVG font stack: DejaVu Sans, then Verdana (the design it is metric-close to), then any sans. */
    static final String SVG_FONT_STACK = "'DejaVu Sans', Verdana, 'Bitstream Vera Sans', sans-serif";

    /** Narrowest advance of a glyph in ems, a safe bound for cutting long strings before measuring. */
    private static final double MIN_GLYPH_EM = 0.2;

    /** Anti-aliased, fractional metrics: the same context the PNG renderer draws with. */
    private static final FontRenderContext CONTEXT;

    static {
        Java2D.init();
        CONTEXT = new FontRenderContext(null, true, true);
    }

    final float sizePx;
    final boolean bold;
    final int rgb;
    private final Font font;
    private final float ascent;
    private final float descent;

    TextStyle(float sizePx, boolean bold, int rgb) {
        this.sizePx = sizePx;
        this.bold = bold;
        this.rgb = rgb;
        this.font = new Font(FONT_FAMILY, bold ? Font.BOLD : Font.PLAIN, 1).deriveFont(sizePx);
        LineMetrics metrics = font.getLineMetrics("Hgjy", CONTEXT);
        this.ascent = metrics.getAscent();
        this.descent = metrics.getDescent();
    }

    Font font() {
        return font;
    }

    /** Advance width of {@code text} in pixels. */
    double width(String text) {
        return font.getStringBounds(text, CONTEXT).getWidth();
    }

    double ascent() {
        return ascent;
    }

    double descent() {
        return descent;
    }

    /** Height of one line of text (ascent + descent), the spacing labels need not to overlap. */
    double lineHeight() {
        return ascent + descent;
    }

    /** Offset from a line's vertical centre to its baseline, so text centres on a row or column. */
    double centreToBaseline() {
        return (ascent - descent) / 2;
    }

    /**
     * {@code text} cut to at most {@code maxWidth} pixels, ending in an ellipsis when cut.
     */
    String truncate(String text, double maxWidth) {
        if (width(text) <= maxWidth) {
            return text;
        }
        String ellipsis = "\u2026";
        // No glyph is narrower than a quarter em, so longer strings are cut before measuring.
        int longest = (int) (maxWidth / (sizePx * MIN_GLYPH_EM)) + 1;
        if (text.length() > longest) {
            text = text.substring(0, Character.isHighSurrogate(text.charAt(longest - 1)) ? longest - 1 : longest);
        }
        int end = text.length();
        while (end > 0 && width(text.substring(0, end) + ellipsis) > maxWidth) {
            end = text.offsetByCodePoints(end, -1);
        }
        return text.substring(0, end) + ellipsis;
    }
}

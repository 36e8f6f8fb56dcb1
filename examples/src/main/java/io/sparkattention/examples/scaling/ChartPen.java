package io.sparkattention.examples.scaling;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.geom.Line2D;
import java.util.ArrayList;
import java.util.List;

/** The chart's drawing primitives: fonts, anchored text, plain and dashed lines, wrapped notes. */
final class ChartPen {

    /** The font the heatmaps use too; it ships with Debian/Ubuntu JDKs' font dependency. */
    static final String FONT_FAMILY = "DejaVu Sans";

    private ChartPen() {
    }

    /** Charts are drawn off-screen: AWT runs headless unless the application chose otherwise. */
    static void headless() {
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
    }

    static Font font(boolean bold, float size) {
        return new Font(FONT_FAMILY, bold ? Font.BOLD : Font.PLAIN, 1).deriveFont(size);
    }

    /** Text with its baseline at y; {@code anchor} 0 = starts at x, 0.5 = centred, 1 = ends at x. */
    static void text(Graphics2D g, String s, double x, double y, Font font, Color colour, double anchor) {
        g.setFont(font);
        g.setColor(colour);
        double w = font.getStringBounds(s, g.getFontRenderContext()).getWidth();
        g.drawString(s, (float) (x - anchor * w), (float) y);
    }

    static void line(Graphics2D g, double x1, double y1, double x2, double y2, Color colour, float width) {
        line(g, x1, y1, x2, y2, colour, width, null);
    }

    /** A line, dashed when {@code dash} (on/off lengths) is given. */
    static void line(Graphics2D g, double x1, double y1, double x2, double y2, Color colour, float width, float[] dash) {
        g.setColor(colour);
        g.setStroke(dash == null ? new BasicStroke(width)
            : new BasicStroke(width, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, dash, 0));
        g.draw(new Line2D.Double(x1, y1, x2, y2));
    }

    /** {@code text} broken at spaces into lines of at most {@code width} pixels. */
    static List<String> wrap(Graphics2D g, String text, Font font, double width) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : text.split(" ")) {
            String candidate = line.length() == 0 ? word : line + " " + word;
            if (line.length() > 0 && font.getStringBounds(candidate, g.getFontRenderContext()).getWidth() > width) {
                lines.add(line.toString());
                line = new StringBuilder(word);
            } else {
                line = new StringBuilder(candidate);
            }
        }
        if (line.length() > 0) {
            lines.add(line.toString());
        }
        return lines;
    }
}

package io.sparkattention.viz;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.AffineTransform;
import java.awt.image.BufferedImage;

/**
 * A {@link Canvas} over an off-screen RGB image (headless Java 2D). Shapes are drawn without
 * anti-aliasing on whole pixels, so cells keep exact colours and crisp edges; text is
 * anti-aliased with fractional metrics, as {@link TextStyle} measures it.
 */
final class PngCanvas implements Canvas {

    static {
        Java2D.init();
    }

    private final BufferedImage image;
    private final Graphics2D g;

    PngCanvas(int width, int height) {
        image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        g = image.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_OFF);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_FRACTIONALMETRICS, RenderingHints.VALUE_FRACTIONALMETRICS_ON);
        g.setRenderingHint(RenderingHints.KEY_RENDERING, RenderingHints.VALUE_RENDER_QUALITY);
    }

    /** The finished picture; the canvas is not usable afterwards. */
    BufferedImage finish() {
        g.dispose();
        return image;
    }

    @Override
    public void fillRect(double x, double y, double w, double h, int rgb) {
        g.setColor(new Color(rgb));
        int x0 = (int) Math.round(x), y0 = (int) Math.round(y);
        g.fillRect(x0, y0, (int) Math.round(x + w) - x0, (int) Math.round(y + h) - y0);
    }

    @Override
    public void strokeRect(double x, double y, double w, double h, int rgb) {
        g.setColor(new Color(rgb));
        int x0 = (int) Math.round(x), y0 = (int) Math.round(y);
        g.drawRect(x0, y0, (int) Math.round(x + w) - x0 - 1, (int) Math.round(y + h) - y0 - 1);
    }

    @Override
    public void line(double x1, double y1, double x2, double y2, int rgb) {
        g.setColor(new Color(rgb));
        // The pixel that contains each end point (coordinates are pixel edges, pixel k covers [k, k+1)).
        g.drawLine((int) Math.floor(x1), (int) Math.floor(y1), (int) Math.floor(x2), (int) Math.floor(y2));
    }

    @Override
    public void text(String text, double x, double y, TextStyle style, Align align) {
        g.setFont(style.font());
        g.setColor(new Color(style.rgb));
        g.drawString(text, (float) (x - offset(text, style, align)), (float) y);
    }

    @Override
    public void verticalText(String text, double x, double y, TextStyle style, Align align) {
        AffineTransform saved = g.getTransform();
        g.translate(x, y);
        g.rotate(-Math.PI / 2);
        text(text, 0, 0, style, align);
        g.setTransform(saved);
    }

    @Override
    public void matrix(Panel panel, int x, int y, int cell, Colormap map, HeatmapLayout layout) {
        for (int r = 0; r < panel.rows; r++) {
            for (int c = 0; c < panel.cols; c++) {
                g.setColor(new Color(map.rgb(panel.scale.position(panel.value(r, c)))));
                g.fillRect(x + c * cell, y + r * cell, cell, cell);
            }
        }
    }

    private static double offset(String text, TextStyle style, Align align) {
        switch (align) {
            case MIDDLE:
                return style.width(text) / 2;
            case END:
                return style.width(text);
            default:
                return 0;
        }
    }
}

package io.sparkattention.viz;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Base64;
import java.util.Locale;

/**
 * A {@link Canvas} that writes a standalone SVG document: plain shapes and text, no scripts, no
 * external references. Matrices of up to {@link #VECTOR_CELL_LIMIT} cells in all are one
 * rectangle per cell with a tooltip (query, key, weight); larger ones are embedded as one
 * lossless PNG per panel (a {@code data:} URI at the figure's resolution), which keeps a page
 * of long passages to a few hundred KB instead of several MB (each vector cell with its tooltip
 * costs about 150 bytes).
 */
final class SvgCanvas implements Canvas {

    /** Most cells (over all panels) drawn as vector rectangles with tooltips. */
    static final int VECTOR_CELL_LIMIT = 16_384;

    private final StringBuilder svg = new StringBuilder(1 << 16);
    private final boolean vectorCells;

    SvgCanvas(int width, int height, long totalCells) {
        this.vectorCells = totalCells <= VECTOR_CELL_LIMIT;
        svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(width).append("\" height=\"")
            .append(height).append("\" viewBox=\"0 0 ").append(width).append(' ').append(height)
            .append("\" font-family=\"").append(TextStyle.SVG_FONT_STACK).append("\">\n");
    }

    /** The finished document. */
    String finish() {
        return svg.append("</svg>\n").toString();
    }

    @Override
    public void fillRect(double x, double y, double w, double h, int rgb) {
        svg.append("<rect x=\"").append(num(x)).append("\" y=\"").append(num(y)).append("\" width=\"").append(num(w))
            .append("\" height=\"").append(num(h)).append("\" fill=\"").append(Markup.hex(rgb)).append("\"/>\n");
    }

    @Override
    public void strokeRect(double x, double y, double w, double h, int rgb) {
        // A 1-unit stroke is centred on its path: inset by half a pixel to cover the edge pixels only.
        svg.append("<rect x=\"").append(num(x + 0.5)).append("\" y=\"").append(num(y + 0.5)).append("\" width=\"")
            .append(num(w - 1)).append("\" height=\"").append(num(h - 1)).append("\" fill=\"none\" stroke=\"")
            .append(Markup.hex(rgb)).append("\" stroke-width=\"1\"/>\n");
    }

    @Override
    public void line(double x1, double y1, double x2, double y2, int rgb) {
        // Through pixel centres, like the PNG's one-pixel lines.
        svg.append("<line x1=\"").append(num(Math.floor(x1) + 0.5)).append("\" y1=\"").append(num(Math.floor(y1) + 0.5))
            .append("\" x2=\"").append(num(Math.floor(x2) + 0.5)).append("\" y2=\"").append(num(Math.floor(y2) + 0.5))
            .append("\" stroke=\"").append(Markup.hex(rgb)).append("\" stroke-width=\"1\"/>\n");
    }

    @Override
    public void text(String text, double x, double y, TextStyle style, Align align) {
        svg.append("<text x=\"").append(num(x)).append("\" y=\"").append(num(y)).append('"');
        style(style, align);
        svg.append('>').append(Markup.escape(text)).append("</text>\n");
    }

    @Override
    public void verticalText(String text, double x, double y, TextStyle style, Align align) {
        svg.append("<text transform=\"translate(").append(num(x)).append(' ').append(num(y)).append(") rotate(-90)\"");
        style(style, align);
        svg.append('>').append(Markup.escape(text)).append("</text>\n");
    }

    @Override
    public void matrix(Panel panel, int x, int y, int cell, Colormap map, HeatmapLayout layout) {
        if (vectorCells) {
            vectorMatrix(panel, x, y, cell, map, layout);
        } else {
            rasterMatrix(panel, x, y, cell, map);
        }
    }

    /** One unit square per cell in a scaled group; crisp edges avoid hairline seams between cells. */
    private void vectorMatrix(Panel panel, int x, int y, int cell, Colormap map, HeatmapLayout layout) {
        svg.append("<g transform=\"translate(").append(x).append(' ').append(y).append(") scale(").append(cell)
            .append(")\" shape-rendering=\"crispEdges\">\n");
        for (int r = 0; r < panel.rows; r++) {
            for (int c = 0; c < panel.cols; c++) {
                float value = panel.value(r, c);
                svg.append("<rect x=\"").append(c).append("\" y=\"").append(r)
                    .append("\" width=\"1\" height=\"1\" fill=\"")
                    .append(Markup.hex(map.rgb(panel.scale.position(value)))).append("\"><title>")
                    .append(Markup.escape(panel.title + ": query " + r + " \u201c" + layout.queryTokens.get(r)
                        + "\u201d \u2192 key " + c + " \u201c" + layout.keyTokens.get(c) + "\u201d: "
                        + (Float.isFinite(value) ? String.format(Locale.ROOT, "%.4g", value) : "masked")))
                    .append("</title></rect>\n");
            }
        }
        svg.append("</g>\n");
    }

    /**
     * The panel as a PNG at display resolution (cell×cell pixels per cell): viewers that ignore
     * {@code image-rendering} would otherwise blur one-pixel cells into each other and invent
     * colours between them that are not on the colour map. Uniform blocks compress well.
     */
    private void rasterMatrix(Panel panel, int x, int y, int cell, Colormap map) {
        BufferedImage cells = new BufferedImage(panel.cols * cell, panel.rows * cell, BufferedImage.TYPE_INT_RGB);
        int[] block = new int[cell * cell];
        for (int r = 0; r < panel.rows; r++) {
            for (int c = 0; c < panel.cols; c++) {
                Arrays.fill(block, map.rgb(panel.scale.position(panel.value(r, c))));
                cells.setRGB(c * cell, r * cell, cell, cell, block, 0, cell);
            }
        }
        ByteArrayOutputStream png = new ByteArrayOutputStream();
        try {
            ImageIO.write(cells, "png", png);
        } catch (IOException e) {
            throw new UncheckedIOException("encoding a heatmap panel as PNG", e);
        }
        svg.append("<image x=\"").append(x).append("\" y=\"").append(y).append("\" width=\"").append(panel.cols * cell)
            .append("\" height=\"").append(panel.rows * cell)
            .append("\" preserveAspectRatio=\"none\" style=\"image-rendering:pixelated\" href=\"data:image/png;base64,")
            .append(Base64.getEncoder().encodeToString(png.toByteArray())).append("\"/>\n");
    }

    private void style(TextStyle style, Align align) {
        svg.append(" font-size=\"").append(num(style.sizePx)).append('"');
        if (style.bold) {
            svg.append(" font-weight=\"bold\"");
        }
        svg.append(" fill=\"").append(Markup.hex(style.rgb)).append('"');
        if (align != Align.START) {
            svg.append(" text-anchor=\"").append(align == Align.MIDDLE ? "middle" : "end").append('"');
        }
    }

    /** Coordinates with at most two decimals, no trailing zeros ("12", "12.5"). */
    private static String num(double v) {
        double r = Math.round(v * 100) / 100.0;
        return r == Math.rint(r) ? Long.toString((long) r) : Double.toString(r);
    }
}

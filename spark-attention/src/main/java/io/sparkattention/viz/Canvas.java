package io.sparkattention.viz;

/**
 * What {@link HeatmapPainter} draws with, in pixel coordinates (y down): implemented once over
 * Java 2D for PNG and once as SVG markup, so both outputs come from the same drawing code.
 */
interface Canvas {

    /** Horizontal alignment of text relative to its anchor point. */
    enum Align { START, MIDDLE, END }

    void fillRect(double x, double y, double w, double h, int rgb);

    /** A one-pixel outline whose pixels lie just inside the rectangle's edge. */
    void strokeRect(double x, double y, double w, double h, int rgb);

    void line(double x1, double y1, double x2, double y2, int rgb);

    /** Horizontal text with its baseline at {@code y}. */
    void text(String text, double x, double y, TextStyle style, Align align);

    /**
     * Text turned 90° counter-clockwise, reading bottom to top. Its baseline is the vertical line
     * through {@code x} (the glyphs stand to its left); {@code align} puts the text's start, middle
     * or end at height {@code y} — with {@link Align#END} the text hangs below {@code y}.
     */
    void verticalText(String text, double x, double y, TextStyle style, Align align);

    /**
     * A panel's matrix: cell (r, c) filled at {@code (x + c·cell, y + r·cell)} with its colour.
     *
     * @param layout gives the token texts (the SVG uses them for per-cell tooltips)
     */
    void matrix(Panel panel, int x, int y, int cell, Colormap map, HeatmapLayout layout);
}

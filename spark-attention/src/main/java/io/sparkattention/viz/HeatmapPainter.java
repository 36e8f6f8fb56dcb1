package io.sparkattention.viz;

import io.sparkattention.viz.Canvas.Align;

/**
 * Draws a {@link HeatmapLayout} on a {@link Canvas}: background, figure title, every panel
 * (title, matrix, frame, token labels with ticks, axis captions) and the colour bar(s).
 */
final class HeatmapPainter {

    /** Gap between a tick mark and its text. */
    private static final int TEXT_GAP_PX = 3;

    private final HeatmapLayout layout;
    private final Colormap map;
    private final Canvas canvas;

    HeatmapPainter(HeatmapLayout layout, Colormap map, Canvas canvas) {
        this.layout = layout;
        this.map = map;
        this.canvas = canvas;
    }

    void paint() {
        HeatmapLayout l = layout;
        canvas.fillRect(0, 0, l.width, l.height, HeatmapLayout.BACKGROUND_RGB);
        if (l.title != null) {
            canvas.text(l.title, l.width / 2.0, HeatmapLayout.PAD_PX + l.titleStyle.ascent(), l.titleStyle, Align.MIDDLE);
        }
        for (int p = 0; p < l.panels.size(); p++) {
            panel(p);
        }
        if (l.scaleMode == ScaleMode.SHARED) {
            colorBar(l.panels.get(0).scale, l.sharedBarX, l.gridY + l.matrixY);
        }
    }

    private void panel(int p) {
        HeatmapLayout l = layout;
        Panel panel = l.panels.get(p);
        int x0 = l.panelX(p), y0 = l.panelY(p);
        int mx = x0 + l.matrixX, my = y0 + l.matrixY;

        // Title centred over the matrix, kept inside the panel when it is wider than the matrix.
        double half = l.panelTitleStyle.width(panel.title) / 2;
        double tx = Math.max(x0 + half, Math.min(x0 + l.panelW - half, mx + l.matrixW / 2.0));
        canvas.text(panel.title, tx, y0 + l.panelTitleStyle.ascent(), l.panelTitleStyle, Align.MIDDLE);

        canvas.matrix(panel, mx, my, l.cell, map, l);
        canvas.strokeRect(mx - 1, my - 1, l.matrixW + 2, l.matrixH + 2, HeatmapLayout.FRAME_RGB);

        // Query labels: right-aligned, centred on their rows.
        double labelX = mx - 1 - HeatmapLayout.TICK_PX;
        for (int i = 0; i < panel.rows; i++) {
            String label = l.queryLabels.get(i);
            if (label != null) {
                double cy = my + i * l.cell + l.cell / 2.0;
                canvas.line(labelX, cy, mx - 1, cy, HeatmapLayout.FRAME_RGB);
                canvas.text(label, labelX - TEXT_GAP_PX, cy + l.labelStyle.centreToBaseline(), l.labelStyle, Align.END);
            }
        }
        // Key labels: turned 90°, hanging below the matrix, centred on their columns.
        double tickEnd = my + l.matrixH + 1 + HeatmapLayout.TICK_PX;
        for (int j = 0; j < panel.cols; j++) {
            String label = l.keyLabels.get(j);
            if (label != null) {
                double cx = mx + j * l.cell + l.cell / 2.0;
                canvas.line(cx, my + l.matrixH + 1, cx, tickEnd, HeatmapLayout.FRAME_RGB);
                canvas.verticalText(label, cx + l.labelStyle.centreToBaseline(), y0 + l.keyLabelTop, l.labelStyle, Align.END);
            }
        }
        canvas.verticalText(l.queryCaption, x0 + l.captionStyle.ascent(), my + l.matrixH / 2.0, l.captionStyle, Align.MIDDLE);
        canvas.text(l.keyCaption, mx + l.matrixW / 2.0, y0 + l.keyCaptionY, l.captionStyle, Align.MIDDLE);

        if (l.scaleMode == ScaleMode.PER_PANEL) {
            colorBar(panel.scale, mx + l.matrixW + HeatmapLayout.BAR_GAP_PX, my);
        }
    }

    /** A vertical bar from the scale's top (hi) to its bottom (lo), tick values on its right, then the masked swatch. */
    private void colorBar(ColorScale scale, int x, int y) {
        HeatmapLayout l = layout;
        int w = HeatmapLayout.BAR_WIDTH_PX, h = l.barH;
        for (int k = 0; k < h; k++) {
            canvas.fillRect(x, y + k, w, 1, map.rgb(1 - (k + 0.5) / h));
        }
        canvas.strokeRect(x - 1, y - 1, w + 2, h + 2, HeatmapLayout.FRAME_RGB);
        for (double tick : scale.ticks()) {
            double ty = y + h - (tick - scale.lo) / (scale.hi - scale.lo) * h;
            ty = Math.max(y, Math.min(y + h, ty));
            canvas.line(x + w + 1, ty, x + w + 1 + HeatmapLayout.TICK_PX, ty, HeatmapLayout.FRAME_RGB);
            canvas.text(scale.format(tick), x + w + 1 + HeatmapLayout.TICK_PX + TEXT_GAP_PX,
                ty + l.tickStyle.centreToBaseline(), l.tickStyle, Align.START);
        }
        if (l.showMaskedLegend) {
            int sy = y + h + 8;
            canvas.fillRect(x, sy, HeatmapLayout.SWATCH_PX, HeatmapLayout.SWATCH_PX, Colormap.MASKED_RGB);
            canvas.strokeRect(x, sy, HeatmapLayout.SWATCH_PX, HeatmapLayout.SWATCH_PX, HeatmapLayout.FRAME_RGB);
            canvas.text(HeatmapLayout.MASKED_LEGEND, x + HeatmapLayout.SWATCH_PX + 5,
                sy + HeatmapLayout.SWATCH_PX / 2.0 + l.tickStyle.centreToBaseline(), l.tickStyle, Align.START);
        }
    }
}

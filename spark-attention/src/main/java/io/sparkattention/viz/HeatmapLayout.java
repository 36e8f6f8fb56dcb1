package io.sparkattention.viz;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Where everything of a heatmap figure goes, in whole pixels, shared by the PNG and the SVG
 * renderer: the grid of panels (one per head, then the average), each with its title, query
 * labels on the left, key labels (rotated 90°) below, and the colour bar(s).
 *
 * <p>Cells are square. Their size aims at panels of about {@link #PANEL_TARGET_PX} pixels, within
 * [{@link #MIN_CELL_PX}, {@link #MAX_CELL_PX}]. When a cell is narrower than a line of label text,
 * only every k-th token is labelled, with k the smallest step at which neighbouring labels cannot
 * overlap; long tokens are cut to {@link #MAX_LABEL_PX} with an ellipsis.
 */
final class HeatmapLayout {

    /**
     * Side of a panel's matrix the cell size aims at: big enough to see, small enough for a grid of
     * panels. At 560 an 80-token sequence gets 7-pixel cells, which label every second token.
     */
    static final int PANEL_TARGET_PX = 560;
    /** Largest cell: short sequences stay compact instead of filling the target with huge squares. */
    static final int MAX_CELL_PX = 36;
    /** Smallest cell: one pixel per weight (longer sequences make large images, see {@link #MAX_IMAGE_PIXELS}). */
    static final int MIN_CELL_PX = 1;
    /** Largest token label font, used when cells are big enough. */
    static final float LABEL_FONT_MAX_PX = 13f;
    /** Smallest token label font: below this, labels are thinned out rather than shrunk. */
    static final float LABEL_FONT_MIN_PX = 10f;
    /** Label font size as a fraction of the cell size, between the two bounds above. */
    static final float LABEL_FONT_PER_CELL = 0.8f;
    /** Space kept between neighbouring labels. */
    static final int LABEL_GAP_PX = 2;
    /** Longest label; longer tokens end in an ellipsis. */
    static final int MAX_LABEL_PX = 120;
    /** Length of the tick marks next to labels and colour-bar values. */
    static final int TICK_PX = 4;
    /** Figure title font size. */
    static final float TITLE_FONT_PX = 20f;
    /** Panel title font size ("Head 0", "Average"). */
    static final float PANEL_TITLE_FONT_PX = 15f;
    /** Axis caption ("query", "key") and colour-bar value font size. */
    static final float SMALL_FONT_PX = 12f;
    /** Margin around the figure. */
    static final int PAD_PX = 16;
    /** Space between panels. */
    static final int PANEL_GAP_PX = 32;
    /** Width of a colour bar. */
    static final int BAR_WIDTH_PX = 16;
    /** Space between a matrix (or the grid) and its colour bar. */
    static final int BAR_GAP_PX = 14;
    /** Shortest colour bar, so its tick values never crowd even for a few tokens. */
    static final int MIN_BAR_PX = 140;
    /** Side of the "masked" swatch under a colour bar. */
    static final int SWATCH_PX = 12;
    /** Largest figure (width × height); bigger would need hundreds of MB of image memory. */
    static final long MAX_IMAGE_PIXELS = 40_000_000L;
    /** Longest figure title; longer titles end in an ellipsis rather than widening the figure. */
    static final int MAX_TITLE_PX = 1600;
    /** Legend text for masked cells. */
    static final String MASKED_LEGEND = "masked / NaN";

    static final int TEXT_RGB = 0x222222;
    static final int CAPTION_RGB = 0x555555;
    static final int FRAME_RGB = 0x444444;
    static final int BACKGROUND_RGB = 0xffffff;

    final List<Panel> panels;
    final ScaleMode scaleMode;
    final String title;
    final boolean showMaskedLegend;

    final TextStyle titleStyle = new TextStyle(TITLE_FONT_PX, true, TEXT_RGB);
    final TextStyle panelTitleStyle = new TextStyle(PANEL_TITLE_FONT_PX, true, TEXT_RGB);
    final TextStyle captionStyle = new TextStyle(SMALL_FONT_PX, false, CAPTION_RGB);
    final TextStyle tickStyle = new TextStyle(SMALL_FONT_PX, false, TEXT_RGB);
    final TextStyle labelStyle;

    final int cell;
    final int queryStep;
    final int keyStep;
    /** Axis captions; they say so when only every k-th token is labelled. */
    final String queryCaption;
    final String keyCaption;
    /** Display text of every query / key (untruncated: SVG tooltips use it). */
    final List<String> queryTokens;
    final List<String> keyTokens;
    /** Label of query i / key j, truncated; null when that token is not labelled. */
    final List<String> queryLabels;
    final List<String> keyLabels;

    // One panel, relative to its top-left corner.
    final int matrixX;
    final int matrixY;
    final int matrixW;
    final int matrixH;
    final int queryCaptionX;
    final int keyLabelTop;
    final int keyCaptionY;
    final int barH;
    final int panelW;
    final int panelH;

    // The figure.
    final int columns;
    final int rows;
    final int gridX;
    final int gridY;
    final int sharedBarX;
    final int width;
    final int height;

    HeatmapLayout(List<Panel> panels, List<String> queryTokens, List<String> keyTokens, String title,
                  ScaleMode scaleMode, int requestedColumns) {
        this.panels = panels;
        this.scaleMode = scaleMode;
        this.queryTokens = queryTokens;
        this.keyTokens = keyTokens;
        int L = panels.get(0).rows, S = panels.get(0).cols;
        this.showMaskedLegend = panels.stream().anyMatch(Panel::hasMasked);

        cell = Math.max(MIN_CELL_PX, Math.min(MAX_CELL_PX, PANEL_TARGET_PX / Math.max(L, S)));
        labelStyle = new TextStyle(Math.max(LABEL_FONT_MIN_PX, Math.min(LABEL_FONT_MAX_PX, cell * LABEL_FONT_PER_CELL)),
            false, TEXT_RGB);
        // Rows and rotated columns both need one line height per label: the step that gives it.
        int step = Math.max(1, (int) Math.ceil((labelStyle.lineHeight() + LABEL_GAP_PX) / cell));
        queryStep = step;
        keyStep = step;
        queryLabels = labels(queryTokens, queryStep);
        keyLabels = labels(keyTokens, keyStep);
        queryCaption = caption("query", queryStep);
        keyCaption = caption("key", keyStep);

        // (1) One panel: caption | query labels | ticks | matrix | (own colour bar).
        int captionH = (int) Math.ceil(captionStyle.lineHeight());
        int panelTitleH = (int) Math.ceil(panelTitleStyle.lineHeight()) + 6;
        queryCaptionX = captionH;
        matrixX = captionH + 6 + widest(queryLabels) + 3 + TICK_PX;
        matrixY = panelTitleH;
        matrixW = S * cell;
        matrixH = L * cell;
        keyLabelTop = matrixY + matrixH + TICK_PX + 3;
        keyCaptionY = keyLabelTop + widest(keyLabels) + 6 + (int) Math.ceil(captionStyle.ascent());
        barH = Math.max(matrixH, MIN_BAR_PX);
        int barBlockW = barBlockWidth(panels);
        int legendH = showMaskedLegend ? 8 + SWATCH_PX : 0;
        int widestPanelTitle = 0;
        for (Panel p : panels) {
            widestPanelTitle = Math.max(widestPanelTitle, (int) Math.ceil(panelTitleStyle.width(p.title)));
        }
        int ownBar = scaleMode == ScaleMode.PER_PANEL ? BAR_GAP_PX + barBlockW : 0;
        panelW = Math.max(matrixX + matrixW + ownBar, widestPanelTitle);
        panelH = Math.max(keyCaptionY + (int) Math.ceil(captionStyle.descent()),
            scaleMode == ScaleMode.PER_PANEL ? matrixY + barH + legendH : 0);

        // (2) The grid of panels, the shared colour bar, the figure title.
        columns = requestedColumns > 0 ? Math.min(requestedColumns, panels.size())
            : (int) Math.ceil(Math.sqrt(panels.size()));
        rows = (panels.size() + columns - 1) / columns;
        this.title = title == null || title.isBlank() ? null : titleStyle.truncate(title.strip(), MAX_TITLE_PX);
        int titleH = this.title == null ? 0 : (int) Math.ceil(titleStyle.lineHeight()) + 12;
        gridX = PAD_PX;
        gridY = PAD_PX + titleH;
        int gridW = columns * panelW + (columns - 1) * PANEL_GAP_PX;
        int gridH = rows * panelH + (rows - 1) * PANEL_GAP_PX;
        sharedBarX = gridX + gridW + BAR_GAP_PX;
        int contentW = gridW + (scaleMode == ScaleMode.SHARED ? BAR_GAP_PX + barBlockW : 0);
        int titleW = this.title == null ? 0 : (int) Math.ceil(titleStyle.width(this.title));
        width = 2 * PAD_PX + Math.max(contentW, titleW);
        int barBottom = scaleMode == ScaleMode.SHARED ? gridY + matrixY + barH + legendH : 0;
        height = Math.max(gridY + gridH, barBottom) + PAD_PX;
        if ((long) width * height > MAX_IMAGE_PIXELS) {
            throw new IllegalArgumentException("the heatmap would be " + width + "×" + height + " pixels (more than "
                + MAX_IMAGE_PIXELS + "): " + panels.size() + " panel(s) of " + L + "×" + S
                + " weights; draw fewer heads, turn the average panel off or cut the sequence");
        }
    }

    /** Left edge of panel {@code p}. */
    int panelX(int p) {
        return gridX + (p % columns) * (panelW + PANEL_GAP_PX);
    }

    /** Top edge of panel {@code p}. */
    int panelY(int p) {
        return gridY + (p / columns) * (panelH + PANEL_GAP_PX);
    }

    /** Horizontal pixel centre of key column {@code col} of panel {@code p}. */
    double cellCentreX(int p, int col) {
        return panelX(p) + matrixX + col * cell + cell / 2.0;
    }

    /** Vertical pixel centre of query row {@code row} of panel {@code p}. */
    double cellCentreY(int p, int row) {
        return panelY(p) + matrixY + row * cell + cell / 2.0;
    }

    /** Width of a colour bar with its tick values and the masked legend. */
    private int barBlockWidth(List<Panel> panels) {
        int values = 0;
        for (Panel p : panels) {
            for (double tick : p.scale.ticks()) {
                values = Math.max(values, (int) Math.ceil(tickStyle.width(p.scale.format(tick))));
            }
        }
        int bar = BAR_WIDTH_PX + TICK_PX + 3 + values;
        int legend = showMaskedLegend ? SWATCH_PX + 5 + (int) Math.ceil(tickStyle.width(MASKED_LEGEND)) : 0;
        return Math.max(bar, legend);
    }

    /** An axis caption: "key", or "key (every 2nd token labelled)" when labels skip tokens. */
    static String caption(String axis, int step) {
        if (step == 1) {
            return axis;
        }
        int lastTwo = step % 100;
        String suffix = lastTwo >= 11 && lastTwo <= 13 ? "th" : step % 10 == 1 ? "st" : step % 10 == 2 ? "nd"
            : step % 10 == 3 ? "rd" : "th";
        return axis + " (every " + step + suffix + " token labelled)";
    }

    /** Every {@code step}-th token's label, cut to {@link #MAX_LABEL_PX}; null for the others. */
    private List<String> labels(List<String> tokens, int step) {
        List<String> labels = new ArrayList<>(Collections.nCopies(tokens.size(), (String) null));
        for (int i = 0; i < tokens.size(); i += step) {
            labels.set(i, labelStyle.truncate(tokens.get(i), MAX_LABEL_PX));
        }
        return labels;
    }

    private int widest(List<String> labels) {
        double w = 0;
        for (String label : labels) {
            if (label != null) {
                w = Math.max(w, labelStyle.width(label));
            }
        }
        return (int) Math.ceil(w);
    }
}

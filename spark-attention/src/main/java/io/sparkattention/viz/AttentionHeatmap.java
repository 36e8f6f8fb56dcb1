package io.sparkattention.viz;

import io.sparkattention.io.AtomicFiles;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A heatmap of one sequence's attention weights: queries on the rows, keys on the columns, with
 * token labels on both axes and a colour scale.
 *
 * <p>H×L×S weights are drawn as one panel per head ("Head 0", "Head 1", …) followed by their
 * average ("Average"); L×S weights as a single panel. Colours come from {@link Colormap#VIRIDIS};
 * NaN or infinite weights are drawn as masked, in {@link Colormap#MASKED_RGB} grey, and the colour
 * bar then shows that swatch too. Long sequences label every k-th token so labels never overlap;
 * long tokens end in an ellipsis.
 *
 * <pre>{@code
 * AttentionHeatmap.of(weights, heads, L, S)      // row-major H×L×S
 *     .tokens(List.of("the", "cat", "sat"))        // L = S = 3
 *     .title("Passage 17")
 *     .writePng(Path.of("passage-17.png"));
 * }</pre>
 *
 * <p>Instances are immutable: every option returns a new heatmap sharing the (copied once) weights.
 * Rendering needs no display (AWT runs headless unless the application chose otherwise).
 */
public final class AttentionHeatmap {

    private final float[] weights;
    private final int heads;
    private final int queryLength;
    private final int keyLength;
    private final List<String> queryTokens;
    private final List<String> keyTokens;
    private final String title;
    private final ScaleMode scaleMode;
    private final double rangeLo;
    private final double rangeHi;
    private final boolean average;
    private final int columns;
    /** The number each head's panel is labelled with; null: 0, 1, … */
    private final int[] headNumbers;

    private AttentionHeatmap(float[] weights, int heads, int queryLength, int keyLength, List<String> queryTokens,
                             List<String> keyTokens, String title, ScaleMode scaleMode, double rangeLo,
                             double rangeHi, boolean average, int columns, int[] headNumbers) {
        this.weights = weights;
        this.heads = heads;
        this.queryLength = queryLength;
        this.keyLength = keyLength;
        this.queryTokens = queryTokens;
        this.keyTokens = keyTokens;
        this.title = title;
        this.scaleMode = scaleMode;
        this.rangeLo = rangeLo;
        this.rangeHi = rangeHi;
        this.average = average;
        this.columns = columns;
        this.headNumbers = headNumbers;
    }

    /**
     * A heatmap of row-major H×L×S weights (L×S when {@code heads} is 1). The array is copied.
     *
     * @param weights     {@code heads·L·S} values; head h's query i, key j at {@code (h·L + i)·S + j}
     * @param heads       H ≥ 1
     * @param queryLength L ≥ 1 (rows)
     * @param keyLength   S ≥ 1 (columns)
     * @return the heatmap, with index labels ("0", "1", …) until tokens are given
     * @throws IllegalArgumentException if a size is below 1 or the array length is not H·L·S
     */
    public static AttentionHeatmap of(float[] weights, int heads, int queryLength, int keyLength) {
        Objects.requireNonNull(weights, "weights");
        if (heads < 1 || queryLength < 1 || keyLength < 1) {
            throw new IllegalArgumentException("heads, L and S must be >= 1, got H=" + heads + ", L=" + queryLength
                + ", S=" + keyLength);
        }
        long expected = (long) heads * queryLength * keyLength;
        if (weights.length != expected) {
            throw new IllegalArgumentException("attention weights have " + weights.length + " values, expected H×L×S = "
                + heads + "×" + queryLength + "×" + keyLength + " = " + expected);
        }
        return new AttentionHeatmap(weights.clone(), heads, queryLength, keyLength, null, null, null,
            ScaleMode.SHARED, Double.NaN, Double.NaN, true, 0, null);
    }

    /**
     * A heatmap of an L×S matrix (e.g. weights averaged over heads).
     *
     * @param weights L rows of S values each
     * @return the heatmap (one panel)
     * @throws IllegalArgumentException if the matrix is empty or ragged
     */
    public static AttentionHeatmap of(float[][] weights) {
        Objects.requireNonNull(weights, "weights");
        return of(new float[][][] {weights});
    }

    /**
     * A heatmap of per-head H×L×S weights.
     *
     * @param weights H matrices of L rows of S values each
     * @return the heatmap (one panel per head, then the average)
     * @throws IllegalArgumentException if a dimension is empty or the arrays are ragged
     */
    public static AttentionHeatmap of(float[][][] weights) {
        Objects.requireNonNull(weights, "weights");
        float[] flat = HeadPlanes.flatten(weights);
        int H = weights.length, L = weights[0].length, S = weights[0][0].length;
        return new AttentionHeatmap(flat, H, L, S, null, null, null, ScaleMode.SHARED, Double.NaN, Double.NaN, true, 0, null);
    }

    /**
     * Labels both axes with the same tokens (self-attention: L = S).
     *
     * @param tokens one per position
     * @return a copy with these labels
     * @throws IllegalArgumentException if the count is not L (and S)
     */
    public AttentionHeatmap tokens(List<String> tokens) {
        return queryTokens(tokens).keyTokens(tokens);
    }

    /**
     * Labels the rows.
     *
     * @param tokens one per query; null entries show as "(null)", blank ones as "␣"
     * @return a copy with these labels
     * @throws IllegalArgumentException if the count is not L
     */
    public AttentionHeatmap queryTokens(List<String> tokens) {
        return new AttentionHeatmap(weights, heads, queryLength, keyLength, checked("query", tokens, queryLength, "L"),
            keyTokens, title, scaleMode, rangeLo, rangeHi, average, columns, headNumbers);
    }

    /**
     * Labels the columns.
     *
     * @param tokens one per key; null entries show as "(null)", blank ones as "␣"
     * @return a copy with these labels
     * @throws IllegalArgumentException if the count is not S
     */
    public AttentionHeatmap keyTokens(List<String> tokens) {
        return new AttentionHeatmap(weights, heads, queryLength, keyLength, queryTokens,
            checked("key", tokens, keyLength, "S"), title, scaleMode, rangeLo, rangeHi, average, columns, headNumbers);
    }

    /**
     * Sets the figure title, drawn above the panels (and used as the HTML page title).
     *
     * @param newTitle the title; null or blank for none
     * @return a copy with this title
     */
    public AttentionHeatmap title(String newTitle) {
        return new AttentionHeatmap(weights, heads, queryLength, keyLength, queryTokens, keyTokens, newTitle,
            scaleMode, rangeLo, rangeHi, average, columns, headNumbers);
    }

    /**
     * Chooses one colour scale for all panels ({@link ScaleMode#SHARED}, the default) or one per panel.
     *
     * @param mode the scale mode
     * @return a copy with this mode
     */
    public AttentionHeatmap scale(ScaleMode mode) {
        return new AttentionHeatmap(weights, heads, queryLength, keyLength, queryTokens, keyTokens, title,
            Objects.requireNonNull(mode, "mode"), rangeLo, rangeHi, average, columns, headNumbers);
    }

    /**
     * Fixes the colour range instead of [min(0, smallest), largest weight]; values outside it take
     * the end colours. Useful to compare several heatmaps (e.g. [0, 1]).
     *
     * @param lo value drawn in the map's bottom colour
     * @param hi value drawn in the map's top colour
     * @return a copy with this range
     * @throws IllegalArgumentException unless both are finite and {@code lo < hi}
     */
    public AttentionHeatmap range(double lo, double hi) {
        if (!Double.isFinite(lo) || !Double.isFinite(hi) || !(lo < hi)) {
            throw new IllegalArgumentException("colour range must be finite with lo < hi, got [" + lo + ", " + hi + "]");
        }
        return new AttentionHeatmap(weights, heads, queryLength, keyLength, queryTokens, keyTokens, title, scaleMode,
            lo, hi, average, columns, headNumbers);
    }

    /**
     * Whether per-head weights get a last "Average" panel (default true; ignored for one head).
     *
     * @param show true to draw the average panel
     * @return a copy with this choice
     */
    public AttentionHeatmap average(boolean show) {
        return new AttentionHeatmap(weights, heads, queryLength, keyLength, queryTokens, keyTokens, title, scaleMode,
            rangeLo, rangeHi, show, columns, headNumbers);
    }

    /**
     * Labels the head panels with these numbers ("Head 2", "Head 5", …), e.g. a model's heads
     * chosen out of more (default: 0, 1, …).
     *
     * @param numbers one per head, in the weights' order
     * @return a copy with these labels
     * @throws IllegalArgumentException if there is not one number per head
     */
    public AttentionHeatmap headNumbers(int... numbers) {
        if (numbers.length != heads) {
            throw new IllegalArgumentException(numbers.length + " head numbers for " + heads + " heads");
        }
        return new AttentionHeatmap(weights, heads, queryLength, keyLength, queryTokens, keyTokens, title, scaleMode,
            rangeLo, rangeHi, average, columns, numbers.clone());
    }

    /**
     * Panels per row of the grid (default: ⌈√panels⌉, e.g. 3 for four heads and the average).
     *
     * @param perRow panels per row, ≥ 1
     * @return a copy with this grid width
     * @throws IllegalArgumentException if {@code perRow < 1}
     */
    public AttentionHeatmap columns(int perRow) {
        if (perRow < 1) {
            throw new IllegalArgumentException("columns must be >= 1, got " + perRow);
        }
        return new AttentionHeatmap(weights, heads, queryLength, keyLength, queryTokens, keyTokens, title, scaleMode,
            rangeLo, rangeHi, average, perRow, headNumbers);
    }

    /**
     * Draws the cells a boolean mask forbids as masked (grey), e.g. the upper triangle of a causal
     * mask, which the kernel reports as weight 0.
     *
     * @param allowed row-major L×S (shared by all heads) or H×L×S; <b>true = may attend</b>, as
     *                everywhere in this library
     * @return a copy whose forbidden cells are NaN
     * @throws IllegalArgumentException if the mask has neither L·S nor H·L·S values
     */
    public AttentionHeatmap masked(boolean[] allowed) {
        Objects.requireNonNull(allowed, "allowed");
        int plane = queryLength * keyLength;
        if (allowed.length != plane && allowed.length != weights.length) {
            throw new IllegalArgumentException("mask has " + allowed.length + " values, expected L×S = " + queryLength
                + "×" + keyLength + " or H×L×S = " + heads + "×" + queryLength + "×" + keyLength);
        }
        float[] copy = weights.clone();
        for (int i = 0; i < copy.length; i++) {
            if (!allowed[allowed.length == plane ? i % plane : i]) {
                copy[i] = Float.NaN;
            }
        }
        return new AttentionHeatmap(copy, heads, queryLength, keyLength, queryTokens, keyTokens, title, scaleMode,
            rangeLo, rangeHi, average, columns, headNumbers);
    }

    /**
     * The number of heads.
     *
     * @return H (1 for L×S weights)
     */
    public int heads() {
        return heads;
    }

    /**
     * The number of queries.
     *
     * @return L, the number of rows
     */
    public int queryLength() {
        return queryLength;
    }

    /**
     * The number of keys.
     *
     * @return S, the number of columns
     */
    public int keyLength() {
        return keyLength;
    }

    /**
     * The figure title.
     *
     * @return the title, or null for none
     */
    public String title() {
        return title;
    }

    /**
     * Renders the figure.
     *
     * @return an RGB image
     * @throws IllegalArgumentException if the figure would exceed {@value HeatmapLayout#MAX_IMAGE_PIXELS} pixels
     */
    public BufferedImage toImage() {
        HeatmapLayout layout = layout();
        PngCanvas canvas = new PngCanvas(layout.width, layout.height);
        new HeatmapPainter(layout, Colormap.VIRIDIS, canvas).paint();
        return canvas.finish();
    }

    /**
     * Writes the figure as a PNG: to a temporary file next to {@code file}, then renamed over it,
     * so no half-written picture is ever visible.
     *
     * @param file the PNG to write; its directory must exist
     * @throws IOException if the file cannot be written
     */
    public void writePng(Path file) throws IOException {
        BufferedImage image = toImage();
        AtomicFiles.write(file, out -> {
            if (!ImageIO.write(image, "png", out)) {
                throw new IOException("no PNG writer in this JVM");
            }
        });
    }

    /**
     * Renders the figure as a standalone SVG document (no scripts, no external references).
     *
     * @return the {@code <svg>} element
     */
    public String toSvg() {
        HeatmapLayout layout = layout();
        long cells = (long) layout.panels.size() * queryLength * keyLength;
        SvgCanvas canvas = new SvgCanvas(layout.width, layout.height, cells);
        new HeatmapPainter(layout, Colormap.VIRIDIS, canvas).paint();
        return canvas.finish();
    }

    /**
     * A self-contained HTML page with the passage and the heatmap as inline SVG.
     *
     * @param passageText the text the weights belong to; null or blank for none
     * @return the page
     */
    public String toHtml(String passageText) {
        return HeatmapPage.titled(title == null ? HeatmapPage.DEFAULT_TITLE : title).add(null, passageText, this).toHtml();
    }

    /**
     * Writes {@link #toHtml(String)} to {@code file} (UTF-8; temporary file, then rename).
     *
     * @param file        the page to write; its directory must exist
     * @param passageText the text the weights belong to; null or blank for none
     * @throws IOException if the file cannot be written
     */
    public void writeHtml(Path file, String passageText) throws IOException {
        HeatmapPage.titled(title == null ? HeatmapPage.DEFAULT_TITLE : title).add(null, passageText, this).write(file);
    }

    /** The panels, their colour scales and the geometry. */
    HeatmapLayout layout() {
        List<Panel> panels = new ArrayList<>();
        int plane = queryLength * keyLength;
        ColorScale shared = scaleMode == ScaleMode.SHARED ? scaleOf(weights, 0, weights.length) : null;
        if (heads == 1) {
            panels.add(new Panel("Attention weights", weights, 0, queryLength, keyLength,
                shared != null ? shared : scaleOf(weights, 0, plane)));
        } else {
            for (int h = 0; h < heads; h++) {
                panels.add(new Panel("Head " + (headNumbers == null ? h : headNumbers[h]), weights, h * plane, queryLength, keyLength,
                    shared != null ? shared : scaleOf(weights, h * plane, (h + 1) * plane)));
            }
            if (average) {
                float[] mean = HeadPlanes.average(weights, heads, plane);
                panels.add(new Panel("Average", mean, 0, queryLength, keyLength,
                    shared != null ? shared : scaleOf(mean, 0, plane)));
            }
        }
        List<String> queries = queryTokens != null ? TokenText.display(queryTokens) : TokenText.indices(queryLength);
        List<String> keys = keyTokens != null ? TokenText.display(keyTokens) : TokenText.indices(keyLength);
        return new HeatmapLayout(panels, queries, keys, title, scaleMode, columns);
    }

    private ColorScale scaleOf(float[] values, int from, int to) {
        return Double.isNaN(rangeLo) ? ColorScale.covering(values, from, to) : new ColorScale(rangeLo, rangeHi);
    }

    private static List<String> checked(String axis, List<String> tokens, int expected, String dim) {
        Objects.requireNonNull(tokens, axis + " tokens");
        if (tokens.size() != expected) {
            throw new IllegalArgumentException(tokens.size() + " " + axis + " tokens given, expected " + dim + " = "
                + expected + " (one per " + axis + ")");
        }
        // Null tokens are allowed (shown as "(null)"), which List.copyOf would reject.
        return Collections.unmodifiableList(new ArrayList<>(tokens));
    }
}

package io.sparkattention.viz;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;

import javax.imageio.ImageIO;
import javax.xml.parsers.DocumentBuilderFactory;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AttentionHeatmapTest {

    private static final List<String> TOKENS = List.of("the", "cat", "sat", "on", "a", "mat");

    @Test
    void writesADecodablePngAndNoTemporaryFile(@TempDir Path dir) throws Exception {
        AttentionHeatmap heatmap = AttentionHeatmap.of(softmaxRows(2, 6, 6, 1), 2, 6, 6).tokens(TOKENS).title("t");
        Path png = dir.resolve("attention.png");
        heatmap.writePng(png);

        BufferedImage read = ImageIO.read(png.toFile());
        assertNotNull(read, "ImageIO cannot decode the PNG");
        BufferedImage drawn = heatmap.toImage();
        assertEquals(drawn.getWidth(), read.getWidth());
        assertEquals(drawn.getHeight(), read.getHeight());
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of(png), files.collect(Collectors.toList()));
        }
    }

    @Test
    void writingIntoAMissingDirectoryFailsWithoutLeavingFiles(@TempDir Path dir) {
        AttentionHeatmap heatmap = AttentionHeatmap.of(new float[] {1}, 1, 1, 1);
        assertThrows(java.nio.file.NoSuchFileException.class, () -> heatmap.writePng(dir.resolve("nope/x.png")));
        assertFalse(Files.exists(dir.resolve("nope")));
    }

    /** Short sequences use the largest cells, so the figure grows with L, S and the number of heads. */
    @Test
    void dimensionsGrowWithLengthsAndHeads() {
        BufferedImage base = image(1, 4, 4);
        BufferedImage moreQueries = image(1, 9, 4);
        BufferedImage moreKeys = image(1, 4, 9);
        BufferedImage moreHeads = image(4, 4, 4);
        assertTrue(moreQueries.getHeight() > base.getHeight());
        assertEquals(base.getWidth(), moreQueries.getWidth());
        assertTrue(moreKeys.getWidth() > base.getWidth());
        assertTrue(moreHeads.getWidth() > base.getWidth());
        assertTrue(moreHeads.getHeight() > base.getHeight());
    }

    @Test
    void cellsHaveTheirColoursAtTheirCentres() {
        int H = 2, L = 5, S = 7;
        float[] w = new float[H * L * S];
        SplittableRandom random = new SplittableRandom(3);
        for (int i = 0; i < w.length; i++) {
            w[i] = (float) (0.1 + 0.4 * random.nextDouble());
        }
        w[(1 * L + 2) * S + 3] = 1f;           // head 1, query 2, key 3: the largest weight
        w[(0 * L + 4) * S + 6] = 0f;           // head 0, query 4, key 6: the smallest
        w[(0 * L + 1) * S + 5] = Float.NaN;    // head 0, query 1, key 5: masked
        AttentionHeatmap heatmap = AttentionHeatmap.of(w, H, L, S);
        HeatmapLayout layout = heatmap.layout();
        BufferedImage image = heatmap.toImage();

        assertEquals(Colormap.VIRIDIS.top(), pixel(image, layout, 1, 2, 3));
        assertEquals(Colormap.VIRIDIS.bottom(), pixel(image, layout, 0, 4, 6));
        assertEquals(Colormap.MASKED_RGB, pixel(image, layout, 0, 1, 5));
        // The average panel (index H) of the masked cell averages the finite head only.
        int expected = Colormap.VIRIDIS.rgb(w[(1 * L + 1) * S + 5]);
        assertEquals(expected, pixel(image, layout, H, 1, 5));
    }

    @Test
    void perPanelScalesStretchEachHead() {
        float[] w = softmaxRows(2, 4, 4, 5);
        for (int i = 16; i < 32; i++) {
            w[i] *= 0.1f;   // head 1 is ten times fainter
        }
        int argmax = 16;
        for (int i = 16; i < 32; i++) {
            argmax = w[i] > w[argmax] ? i : argmax;
        }
        int row = (argmax - 16) / 4, col = (argmax - 16) % 4;
        AttentionHeatmap shared = AttentionHeatmap.of(w, 2, 4, 4);
        AttentionHeatmap perPanel = shared.scale(ScaleMode.PER_PANEL);
        assertNotEquals(Colormap.VIRIDIS.top(), pixel(shared.toImage(), shared.layout(), 1, row, col));
        assertEquals(Colormap.VIRIDIS.top(), pixel(perPanel.toImage(), perPanel.layout(), 1, row, col));
        assertTrue(perPanel.toImage().getWidth() > shared.toImage().getWidth(), "one colour bar per panel");
    }

    @Test
    void fixedRangeAndCausalMask() {
        int n = 4;
        boolean[] causal = new boolean[n * n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j <= i; j++) {
                causal[i * n + j] = true;
            }
        }
        float[] w = new float[n * n];
        java.util.Arrays.fill(w, 0.5f);
        AttentionHeatmap heatmap = AttentionHeatmap.of(w, 1, n, n).range(0, 0.5).masked(causal);
        BufferedImage image = heatmap.toImage();
        HeatmapLayout layout = heatmap.layout();
        assertEquals(Colormap.VIRIDIS.top(), pixel(image, layout, 0, 2, 1));
        assertEquals(Colormap.MASKED_RGB, pixel(image, layout, 0, 1, 2));
        assertTrue(layout.showMaskedLegend);
    }

    @Test
    void svgIsWellFormedAndLabelsBothAxes() throws Exception {
        List<String> tokens = List.of("<s>", "Mr.", "Darcy", "&", "\"Lizzy\"", "bowed");
        String svg = AttentionHeatmap.of(softmaxRows(2, 6, 6, 2), 2, 6, 6).tokens(tokens).title("Head & shoulders").toSvg();
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
            .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
        assertEquals("svg", doc.getDocumentElement().getTagName());
        String text = doc.getDocumentElement().getTextContent();
        for (String token : tokens) {
            // Each token labels a row and a column in each of the three panels.
            assertTrue(count(svg, ">" + xml(token) + "</text>") >= 6, "labels of " + token);
        }
        assertTrue(text.contains("Head 0") && text.contains("Head 1") && text.contains("Average"));
        assertTrue(text.contains("Head & shoulders"));
        assertTrue(svg.contains("<title>Head 1: query 2 \u201cDarcy\u201d \u2192 key 5 \u201cbowed\u201d: "), "tooltips");
        assertFalse(svg.contains("<script"));
    }

    @Test
    void largeSvgEmbedsMatricesAsImages() {
        int n = 100;
        String svg = AttentionHeatmap.of(softmaxRows(2, n, n, 4), 2, n, n).toSvg();
        assertEquals(3, count(svg, "<image "));
        assertTrue(svg.contains("href=\"data:image/png;base64,"));
        assertFalse(svg.contains("<title>"));
        assertTrue(svg.length() < 2_000_000, "SVG size " + svg.length());
    }

    @Test
    void htmlIsSelfContainedWithPassageAndSvg(@TempDir Path dir) throws Exception {
        String passage = "It is a truth universally acknowledged <that> a single man...";
        AttentionHeatmap heatmap = AttentionHeatmap.of(softmaxRows(1, 6, 6, 3), 1, 6, 6).tokens(TOKENS).title("P&P");
        Path file = dir.resolve("page.html");
        heatmap.writeHtml(file, passage);
        String html = Files.readString(file);
        assertTrue(html.startsWith("<!DOCTYPE html>"));
        assertTrue(html.contains("<title>P&amp;P</title>"));
        assertTrue(html.contains("It is a truth universally acknowledged &lt;that&gt; a single man..."));
        assertEquals(1, count(html, "<svg "));
        assertTrue(html.contains(">cat</text>"));
        assertFalse(html.contains("<script"));
        assertTrue(html.contains("<meta name=\"generator\" content=\"spark-attention\">"), "the page names its writer");
        // Causal, window and padding masks give weight 0, drawn as 0; grey is for non-finite cells only.
        assertTrue(html.contains("have weight 0 and are drawn in the colour of 0"), "the legend tells how masks look");
        assertFalse(html.contains("Grey cells are masked"));
        assertFalse(html.contains("src="));
        assertFalse(html.contains("<link"));
        assertFalse(html.replace("xmlns=\"http://www.w3.org/2000/svg\"", "").contains("http"), "external reference");
    }

    @Test
    void pageCombinesSeveralHeatmaps() {
        AttentionHeatmap a = AttentionHeatmap.of(softmaxRows(1, 3, 3, 1), 1, 3, 3);
        String html = HeatmapPage.titled("Passages").add("Passage 1", "one two three", a).add("Passage 2", null, a).toHtml();
        assertEquals(2, count(html, "<svg "));
        assertTrue(html.contains("<h2>Passage 2</h2>"));
        assertEquals(1, count(html, "<blockquote"));
    }

    @Test
    void longTokensAreCutWithAnEllipsis() {
        String long1 = "supercalifragilisticexpialidocious-and-then-some";
        HeatmapLayout layout = AttentionHeatmap.of(new float[4], 1, 2, 2).tokens(List.of(long1, "b")).layout();
        String label = layout.queryLabels.get(0);
        assertTrue(label.endsWith("\u2026"), label);
        assertTrue(long1.startsWith(label.substring(0, label.length() - 1)));
        assertTrue(layout.labelStyle.width(label) <= HeatmapLayout.MAX_LABEL_PX);
        assertEquals("b", layout.keyLabels.get(1));
    }

    @Test
    void blankAndControlTokensStayVisible() {
        HeatmapLayout layout = AttentionHeatmap.of(new float[9], 1, 3, 3)
            .tokens(java.util.Arrays.asList(" ", "a\nb", null)).layout();
        assertEquals(List.of(TokenText.BLANK, "a b", TokenText.NULL), layout.queryLabels);
    }

    /** Long sequences label every k-th token, with k large enough that labels cannot overlap. */
    @Test
    void longSequencesThinOutLabelsSoTheyNeverOverlap() {
        for (int n : new int[] {12, 80, 200, 700}) {
            HeatmapLayout layout = AttentionHeatmap.of(new float[n * n], 1, n, n).layout();
            double spacing = layout.queryStep * layout.cell;
            assertTrue(spacing >= layout.labelStyle.lineHeight(), "n=" + n + ": labels " + spacing + " px apart");
            assertTrue(layout.labelStyle.sizePx >= HeatmapLayout.LABEL_FONT_MIN_PX, "legible font");
            int labelled = 0;
            for (int i = 0; i < n; i++) {
                boolean shown = layout.queryLabels.get(i) != null;
                assertEquals(i % layout.queryStep == 0, shown, "n=" + n + ", label " + i);
                labelled += shown ? 1 : 0;
            }
            assertTrue(labelled >= Math.min(n, 20), "n=" + n + ": only " + labelled + " labels");
            if (n <= 12) {
                assertEquals(1, layout.queryStep, "every token of a short sequence is labelled");
            }
            assertEquals(HeatmapLayout.caption("query", layout.queryStep), layout.queryCaption);
            assertEquals(HeatmapLayout.caption("key", layout.keyStep), layout.keyCaption);
        }
        assertEquals("query", AttentionHeatmap.of(new float[12 * 12], 1, 12, 12).layout().queryCaption);
        assertEquals("key (every 2nd token labelled)", AttentionHeatmap.of(new float[80 * 80], 1, 80, 80).layout()
            .keyCaption);
    }

    /** The axis captions say when the labels skip tokens, and how many. */
    @Test
    void captionsSayWhenLabelsSkipTokens() {
        assertEquals("key", HeatmapLayout.caption("key", 1));
        assertEquals("key (every 2nd token labelled)", HeatmapLayout.caption("key", 2));
        assertEquals("query (every 3rd token labelled)", HeatmapLayout.caption("query", 3));
        assertEquals("key (every 4th token labelled)", HeatmapLayout.caption("key", 4));
        assertEquals("key (every 11th token labelled)", HeatmapLayout.caption("key", 11));
        assertEquals("key (every 21st token labelled)", HeatmapLayout.caption("key", 21));
    }

    @Test
    void gridDefaultsToAboutSquare() {
        assertEquals(3, AttentionHeatmap.of(new float[4 * 4], 4, 2, 2).layout().columns);   // 4 heads + average
        assertEquals(1, AttentionHeatmap.of(new float[4], 1, 2, 2).layout().columns);
        HeatmapLayout row = AttentionHeatmap.of(new float[4 * 4], 4, 2, 2).columns(5).layout();
        assertEquals(1, row.rows);
        assertEquals(4, AttentionHeatmap.of(new float[4 * 4], 4, 2, 2).average(false).layout().panels.size());
    }

    @Test
    void rejectsInvalidInputWithClearMessages() {
        assertMessage("attention weights have 23 values, expected H×L×S = 2×3×4 = 24",
            () -> AttentionHeatmap.of(new float[23], 2, 3, 4));
        assertMessage("heads, L and S must be >= 1", () -> AttentionHeatmap.of(new float[0], 0, 3, 4));
        assertMessage("5 query tokens given, expected L = 4",
            () -> AttentionHeatmap.of(new float[16], 1, 4, 4).queryTokens(List.of("a", "b", "c", "d", "e")));
        assertMessage("3 key tokens given, expected S = 2",
            () -> AttentionHeatmap.of(new float[8], 1, 4, 2).keyTokens(List.of("a", "b", "c")));
        assertMessage("head 0, query 1 has 2 weights, expected S = 3",
            () -> AttentionHeatmap.of(new float[][] {{1, 2, 3}, {4, 5}}));
        assertMessage("head 1 has 1 query rows, expected L = 2",
            () -> AttentionHeatmap.of(new float[][][] {{{1}, {2}}, {{3}}}));
        assertMessage("attention weights are empty", () -> AttentionHeatmap.of(new float[0][]));
        assertMessage("colour range must be finite with lo < hi", () -> AttentionHeatmap.of(new float[1], 1, 1, 1).range(1, 0));
        assertMessage("mask has 3 values, expected L×S = 2×2 or H×L×S = 1×2×2",
            () -> AttentionHeatmap.of(new float[4], 1, 2, 2).masked(new boolean[3]));
        assertMessage("columns must be >= 1", () -> AttentionHeatmap.of(new float[1], 1, 1, 1).columns(0));
        // 1000 panels of one query × 2000 keys in a single column: far beyond the pixel budget.
        assertMessage("pixels (more than 40000000)",
            () -> AttentionHeatmap.of(new float[1000 * 2000], 1000, 1, 2000).average(false).columns(1).toImage());
    }

    private static void assertMessage(String expected, org.junit.jupiter.api.function.Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().contains(expected), "message: " + e.getMessage());
    }

    private static BufferedImage image(int heads, int L, int S) {
        return AttentionHeatmap.of(softmaxRows(heads, L, S, 9), heads, L, S).toImage();
    }

    /** The RGB at the centre of cell (row, col) of panel {@code p}. */
    private static int pixel(BufferedImage image, HeatmapLayout layout, int p, int row, int col) {
        return image.getRGB((int) layout.cellCentreX(p, col), (int) layout.cellCentreY(p, row)) & 0xffffff;
    }

    /** Random attention weights: each (head, query) row a softmax over S keys. */
    static float[] softmaxRows(int heads, int L, int S, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        float[] w = new float[heads * L * S];
        for (int r = 0; r < heads * L; r++) {
            double sum = 0;
            double[] e = new double[S];
            for (int j = 0; j < S; j++) {
                e[j] = Math.exp(2 * random.nextDouble());
                sum += e[j];
            }
            for (int j = 0; j < S; j++) {
                w[r * S + j] = (float) (e[j] / sum);
            }
        }
        return w;
    }

    private static int count(String haystack, String needle) {
        int n = 0;
        for (int i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + 1)) {
            n++;
        }
        return n;
    }

    @Test
    void headPanelsCarryTheHeadNumbersGiven() {
        AttentionHeatmap heatmap = AttentionHeatmap.of(new float[3 * 2 * 2], 3, 2, 2);
        assertEquals(List.of("Head 0", "Head 1", "Head 2", "Average"),
            heatmap.layout().panels.stream().map(p -> p.title).collect(Collectors.toList()));
        assertEquals(List.of("Head 2", "Head 5", "Head 4"), heatmap.average(false).headNumbers(2, 5, 4).title("t")
            .layout().panels.stream().map(p -> p.title).collect(Collectors.toList()));
        assertTrue(heatmap.headNumbers(2, 5, 4).toSvg().contains("Head 5"));
        assertThrows(IllegalArgumentException.class, () -> heatmap.headNumbers(1, 2));
    }

    private static String xml(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}

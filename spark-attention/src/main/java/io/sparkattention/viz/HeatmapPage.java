package io.sparkattention.viz;

import io.sparkattention.io.AtomicFiles;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A self-contained HTML page of attention heatmaps, each shown with its passage: one file, inline
 * SVG and CSS, no scripts and no external resources, so it opens offline and can be mailed or
 * archived as is.
 *
 * <pre>{@code
 * HeatmapPage.titled("Attention in Persuasion")
 *     .add("Passage 3", passageText, heatmap)
 *     .write(Path.of("attention.html"));
 * }</pre>
 */
public final class HeatmapPage {

    /** Page title when none is given. */
    public static final String DEFAULT_TITLE = "Attention heatmap";

    /** How to read the figures, shown once under the page title. */
    static final String READING_GUIDE = "Rows are queries, columns are keys: row i shows how much query token i "
        + "attends to each key (a row sums to 1 over the keys it may see). Keys a query may not see (a causal "
        + "mask, a window, padding) have weight 0 and are drawn in the colour of 0; grey cells have no finite weight "
        + "(NaN or infinite values, or cells a drawn mask forbids). "
        + "Hover over a cell to see its tokens and weight.";

    /** The page's generator, in a {@code <meta name="generator">} tag: marks pages this library wrote. */
    public static final String GENERATOR = "spark-attention";

    private static final String STYLE = "body{font-family:'DejaVu Sans',Verdana,sans-serif;color:#222;margin:2em;"
        + "max-width:120em}h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em}"
        + ".guide{color:#555;font-size:.9em}blockquote{font-family:Georgia,serif;font-size:1.05em;line-height:1.5;"
        + "border-left:4px solid #21918c;margin:1em 0;padding:.2em 1em;background:#f6f6f6;white-space:pre-wrap}"
        + "figure{margin:0;overflow-x:auto}figure svg{max-width:100%;height:auto}";

    private final String title;
    private final List<Section> sections;

    private HeatmapPage(String title, List<Section> sections) {
        this.title = title;
        this.sections = sections;
    }

    /**
     * An empty page.
     *
     * @param title the page title (the {@code <title>} and the top heading)
     * @return the page
     */
    public static HeatmapPage titled(String title) {
        return new HeatmapPage(title == null || title.isBlank() ? DEFAULT_TITLE : title, List.of());
    }

    /**
     * Adds a heatmap with its passage.
     *
     * @param heading     section heading; null or blank for none
     * @param passageText the passage shown above the heatmap; null or blank for none
     * @param heatmap     the figure
     * @return a copy of this page with the section appended
     */
    public HeatmapPage add(String heading, String passageText, AttentionHeatmap heatmap) {
        Objects.requireNonNull(heatmap, "heatmap");
        List<Section> more = new ArrayList<>(sections);
        more.add(new Section(heading, passageText, heatmap));
        return new HeatmapPage(title, List.copyOf(more));
    }

    /**
     * The HTML document.
     *
     * @return the page, starting with {@code <!DOCTYPE html>}
     */
    public String toHtml() {
        StringBuilder html = new StringBuilder(1 << 16);
        html.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
            .append("<meta name=\"generator\" content=\"").append(GENERATOR).append("\">\n")
            .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>")
            .append(Markup.escape(title)).append("</title>\n<style>").append(STYLE).append("</style>\n</head>\n<body>\n")
            .append("<h1>").append(Markup.escape(title)).append("</h1>\n")
            .append("<p class=\"guide\">").append(Markup.escape(READING_GUIDE)).append("</p>\n");
        for (Section section : sections) {
            html.append("<section>\n");
            if (!isBlank(section.heading)) {
                html.append("<h2>").append(Markup.escape(section.heading)).append("</h2>\n");
            }
            if (!isBlank(section.passage)) {
                html.append("<blockquote class=\"passage\">").append(Markup.escape(section.passage.strip()))
                    .append("</blockquote>\n");
            }
            html.append("<figure>\n").append(section.heatmap.toSvg()).append("</figure>\n</section>\n");
        }
        return html.append("</body>\n</html>\n").toString();
    }

    /**
     * Writes {@link #toHtml()} to {@code file} in UTF-8, through a temporary file renamed into place.
     *
     * @param file the page; its directory must exist
     * @throws IOException if it cannot be written
     */
    public void write(Path file) throws IOException {
        byte[] bytes = toHtml().getBytes(StandardCharsets.UTF_8);
        AtomicFiles.write(file, out -> out.write(bytes));
    }

    private static boolean isBlank(String s) {
        return s == null || s.isBlank();
    }

    /** One heading, passage and figure. */
    private static final class Section {
        final String heading;
        final String passage;
        final AttentionHeatmap heatmap;

        Section(String heading, String passage, AttentionHeatmap heatmap) {
            this.heading = heading;
            this.passage = passage;
            this.heatmap = heatmap;
        }
    }
}

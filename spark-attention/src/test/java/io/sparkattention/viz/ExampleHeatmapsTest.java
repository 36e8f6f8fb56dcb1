package io.sparkattention.viz;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The documentation's example heatmaps: kernel-computed weights of recognisable heads, rendered at 12 and 80 tokens. */
class ExampleHeatmapsTest {

    @Test
    void rendersTheDocumentationExamples(@TempDir Path dir) throws Exception {
        ExampleHeatmaps.main(new String[] {dir.toString()});
        BufferedImage twelve = ImageIO.read(dir.resolve("heatmap-12-tokens.png").toFile());
        BufferedImage eighty = ImageIO.read(dir.resolve("heatmap-80-tokens-causal.png").toFile());
        assertNotNull(twelve);
        assertNotNull(eighty);
        String html = Files.readString(dir.resolve("heatmap-80-tokens-causal.html"));
        assertTrue(html.contains("It is a truth universally acknowledged"));
    }

    /** The hand-built heads do what they are named for: argmax of each query row. */
    @Test
    void headsAttendWhereTheyAreNamedFor() {
        int n = 12;
        HeatmapLayout layout = ExampleHeatmaps.heatmap(ExampleHeatmaps.tokens(n), false).layout();
        for (int i = 1; i < n - 1; i++) {
            assertEquals(i - 1, argmax(layout.panels.get(1), i), "head 1 looks at the previous token, query " + i);
            assertEquals(i + 1, argmax(layout.panels.get(2), i), "head 2 looks at the next token, query " + i);
        }
        // "a" (positions 2 and 8) attends to itself and its repeat in the same-word head.
        Panel same = layout.panels.get(0);
        assertTrue(same.value(8, 2) > 0.2f && same.value(8, 8) > 0.2f, "same-word head on 'a'");
    }

    private static int argmax(Panel panel, int row) {
        int best = 0;
        for (int j = 1; j < panel.cols; j++) {
            best = panel.value(row, j) > panel.value(row, best) ? j : best;
        }
        return best;
    }
}

package io.sparkattention.examples.scaling;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ScalingChartTest {

    /** Synthetic points: tiled memory ∝ n, naive ∝ n², both times ∝ n²; naive skipped at the largest n. */
    private static List<ScalingPoint> points() {
        List<ScalingPoint> points = new ArrayList<>();
        for (int n = 256; n <= 16384; n *= 2) {
            double t = 1e-5 * n * n;
            points.add(point("tiled", n, t, n / 1000.0));
            points.add(n < 16384 ? point("naive", n, t, 4.0 * n * n / (1 << 20))
                : ScalingPoint.parse("{\"impl\":\"naive\",\"seq_len\":16384,\"status\":\"skipped\","
                    + "\"reason\":\"too big\",\"heap_max_mb\":989}"));
        }
        return points;
    }

    private static ScalingPoint point(String impl, int n, double ms, double mb) {
        return ScalingPoint.parse(String.format(Locale.ROOT, "{\"impl\":\"%s\",\"seq_len\":%d,\"status\":\"ok\","
            + "\"median_ms\":%f,\"peak_heap_mb\":%f,\"heap_max_mb\":989}", impl, n, ms, mb));
    }

    @Test
    void slopesAreThePowerLawExponents() {
        List<ScalingPoint> tiled = series(Implementation.TILED);
        List<ScalingPoint> naive = series(Implementation.NAIVE);
        assertEquals("1.00", ScalingChart.slope(tiled, ScalingPoint::peakHeapMb));
        assertEquals("2.00", ScalingChart.slope(naive, ScalingPoint::peakHeapMb));
        assertEquals("2.00", ScalingChart.slope(tiled, ScalingPoint::medianMs));
        assertNull(ScalingChart.slope(naive.subList(0, 1), ScalingPoint::medianMs));
    }

    private static List<ScalingPoint> series(Implementation impl) {
        return points().stream().filter(p -> p.impl() == impl).collect(Collectors.toList());
    }

    @Test
    void writesTheFigure(@TempDir Path dir) throws Exception {
        Path png = dir.resolve("scaling.png");
        new ScalingChart(points(), "synthetic").writePng(png);
        BufferedImage image = ImageIO.read(png.toFile());
        assertNotNull(image);
        assertEquals(ScalingChart.WIDTH, image.getWidth());
        assertEquals(ScalingChart.HEIGHT, image.getHeight());
        try (var files = Files.list(dir)) {
            assertEquals(List.of(png), files.collect(Collectors.toList()), "no temporary file left");
        }
        // Both series' colours appear: the lines were drawn.
        assertTrue(hasColour(image, SeriesStyle.TILED_RGB), "tiled line");
        assertTrue(hasColour(image, SeriesStyle.NAIVE_RGB), "naive line");
    }

    @Test
    void logAxisTicks() {
        LogAxis n = new LogAxis(200, 20000, 0, 600);
        assertEquals(List.of(256.0, 512.0, 1024.0, 2048.0, 4096.0, 8192.0, 16384.0), n.powersOfTwo(1));
        assertEquals(List.of(256.0, 1024.0, 4096.0, 16384.0), n.powersOfTwo(2));
        LogAxis wide = new LogAxis(0.2, 2000, 400, 0);
        assertEquals(List.of(1.0, 10.0, 100.0, 1000.0), wide.majorTicks());
        assertEquals(0, wide.pixel(2000), 1e-9);
        assertEquals(400, wide.pixel(0.2), 1e-9);
        LogAxis narrow = new LogAxis(0.3, 9, 100, 0);
        assertEquals(List.of(0.5, 1.0, 2.0, 5.0), narrow.majorTicks());
        assertEquals("0.5", LogAxis.format(0.5));
        assertEquals("0.01", LogAxis.format(0.01));
        assertEquals("1000", LogAxis.format(1000));
    }

    private static boolean hasColour(BufferedImage image, int rgb) {
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                if ((image.getRGB(x, y) & 0xffffff) == rgb) {
                    return true;
                }
            }
        }
        return false;
    }
}

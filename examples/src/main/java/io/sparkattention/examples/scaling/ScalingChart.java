package io.sparkattention.examples.scaling;

import io.sparkattention.io.AtomicFiles;

import javax.imageio.ImageIO;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.AffineTransform;
import java.awt.geom.Line2D;
import java.awt.geom.Path2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * The scaling figure: time per forward pass and peak heap against the sequence length n, both on
 * log-log axes, one line per implementation, as the seed notebook draws it. On log-log axes a
 * power law is a straight line whose slope is its exponent, so the legend gives each line's
 * slope over its largest sizes: memory ≈ 1 for the tiled kernel (inputs grow with n), ≈ 2 for
 * naive attention (its n×n scores).
 */
public final class ScalingChart {

    /** Figure size: two panels side by side. */
    static final int WIDTH = 1400;
    static final int HEIGHT = 660;
    /** Space around and between the panels (left holds the y tick labels and axis title). */
    static final int LEFT = 90;
    static final int RIGHT = 30;
    static final int TOP = 100;
    static final int BOTTOM = 160;
    static final int GAP = 110;
    /** Head-room above and below the data on each axis, as a factor. */
    static final double PAD = 1.6;
    /** Points (largest n first) whose slope the legend reports. */
    static final int SLOPE_POINTS = 3;

    private static final Color TEXT = new Color(0x222222);
    private static final Color GRID = new Color(0xe4e4e4);
    private static final Color AXIS = new Color(0x444444);
    private static final Color NOTE = new Color(0x555555);
    static {
        ChartPen.headless();
    }

    private final List<ScalingPoint> points;
    private final String subtitle;

    /**
     * A chart of measured points.
     *
     * @param points   every point, ok or not
     * @param subtitle what was measured (head dimension, threads, BLAS, heap), shown under the title
     */
    public ScalingChart(List<ScalingPoint> points, String subtitle) {
        this.points = List.copyOf(points);
        this.subtitle = subtitle;
    }

    /**
     * Draws the figure.
     *
     * @return an RGB image
     */
    public BufferedImage render() {
        BufferedImage image = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_FRACTIONALMETRICS, RenderingHints.VALUE_FRACTIONALMETRICS_ON);
            g.setRenderingHint(RenderingHints.KEY_STROKE_CONTROL, RenderingHints.VALUE_STROKE_PURE);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, WIDTH, HEIGHT);
            ChartPen.text(g, "Attention: time and memory against sequence length", WIDTH / 2.0, 32,
                ChartPen.font(true, 20), TEXT, 0.5);
            ChartPen.text(g, subtitle, WIDTH / 2.0, 56, ChartPen.font(false, 13), NOTE, 0.5);

            int panelW = (WIDTH - LEFT - RIGHT - GAP) / 2;
            int plotTop = TOP, plotBottom = HEIGHT - BOTTOM;
            List<Double> heap = heapLimit().map(List::of).orElse(List.of());
            // Points that did not run are marked in the memory panel only: memory is why they did not.
            panel(g, "Time per forward pass", "time (ms)", ScalingPoint::medianMs, List.of(), false,
                LEFT, LEFT + panelW, plotTop, plotBottom);
            panel(g, "Peak heap during a forward pass", "peak heap (MiB)", ScalingPoint::peakHeapMb, heap, true,
                LEFT + panelW + GAP, LEFT + 2 * panelW + GAP, plotTop, plotBottom);
            notes(g, plotBottom + 84);
        } finally {
            g.dispose();
        }
        return image;
    }

    /**
     * Writes the figure as a PNG, through a temporary file renamed into place.
     *
     * @param file the PNG; its directory must exist
     * @throws IOException if it cannot be written
     */
    public void writePng(Path file) throws IOException {
        BufferedImage image = render();
        AtomicFiles.write(file, out -> {
            if (!ImageIO.write(image, "png", out)) {
                throw new IOException("no PNG writer in this JVM");
            }
        });
    }

    /**
     * One log-log panel of {@code metric} against n; {@code extra} values (the heap limit) also fit
     * on the y axis, and {@code markMissing} draws points that did not run as crosses on the limit.
     */
    private void panel(Graphics2D g, String title, String yTitle, ToDoubleFunction<ScalingPoint> metric,
                       List<Double> extra, boolean markMissing, int x0, int x1, int y0, int y1) {
        List<Double> ns = points.stream().map(p -> (double) p.seqLen()).collect(Collectors.toList());
        List<Double> ys = points.stream().filter(ScalingPoint::ok).map(metric::applyAsDouble).collect(Collectors.toList());
        ys.addAll(extra);
        LogAxis x = LogAxis.around(ns, Math.pow(2, 0.35), x0, x1);
        LogAxis y = LogAxis.around(ys, PAD, y1, y0);

        // Grid and ticks.
        Font tickFont = ChartPen.font(false, 13);
        for (double v : y.minorTicks()) {
            ChartPen.line(g, x0 - 4, y.pixel(v), x0, y.pixel(v), AXIS, 1f);
        }
        for (double v : y.majorTicks()) {
            double py = y.pixel(v);
            ChartPen.line(g, x0, py, x1, py, GRID, 1f);
            ChartPen.line(g, x0 - 7, py, x0, py, AXIS, 1f);
            ChartPen.text(g, LogAxis.format(v), x0 - 10, py + 5, tickFont, TEXT, 1);
        }
        List<Double> xTicks = xTicks(g, x, tickFont);
        for (double v : xTicks) {
            double px = x.pixel(v);
            ChartPen.line(g, px, y0, px, y1, GRID, 1f);
            ChartPen.line(g, px, y1, px, y1 + 7, AXIS, 1f);
            ChartPen.text(g, LogAxis.format(v), px, y1 + 24, tickFont, TEXT, 0.5);
        }
        g.setColor(AXIS);
        g.setStroke(new BasicStroke(1.2f));
        g.draw(new Rectangle2D.Double(x0, y0, x1 - x0, y1 - y0));

        ChartPen.text(g, title, (x0 + x1) / 2.0, y0 - 10, ChartPen.font(true, 16), TEXT, 0.5);
        ChartPen.text(g, "sequence length n (L = S, log scale)", (x0 + x1) / 2.0, y1 + 50, ChartPen.font(false, 14),
            TEXT, 0.5);
        AffineTransform saved = g.getTransform();
        g.rotate(-Math.PI / 2, x0 - 62, (y0 + y1) / 2.0);
        ChartPen.text(g, yTitle + ", log scale", x0 - 62, (y0 + y1) / 2.0, ChartPen.font(false, 14), TEXT, 0.5);
        g.setTransform(saved);

        double missingY = y0 + 12;
        for (double limit : extra) {
            double py = y.pixel(limit);
            ChartPen.line(g, x0, py, x1, py, NOTE, 1.3f, new float[] {3, 4});
            ChartPen.text(g, "heap limit " + LogAxis.format(Math.round(limit)) + " MiB", x0 + 8, py - 6,
                ChartPen.font(false, 12), NOTE, 0);
            missingY = py;
        }

        // One line per implementation; points that did not run are crosses (on the heap limit).
        List<Implementation> drawn = new ArrayList<>();
        for (Implementation impl : Implementation.values()) {
            List<ScalingPoint> series = points.stream().filter(p -> p.impl() == impl)
                .sorted(Comparator.comparingInt(ScalingPoint::seqLen)).collect(Collectors.toList());
            if (series.isEmpty()) {
                continue;
            }
            Color colour = SeriesStyle.colour(impl);
            Path2D path = new Path2D.Double();
            boolean started = false;
            for (ScalingPoint p : series) {
                if (!p.ok()) {
                    continue;
                }
                double px = x.pixel(p.seqLen()), py = y.pixel(metric.applyAsDouble(p));
                if (started) {
                    path.lineTo(px, py);
                } else {
                    path.moveTo(px, py);
                    started = true;
                }
            }
            g.setColor(colour);
            g.setStroke(SeriesStyle.stroke(impl, 2.5f));
            g.draw(path);
            for (ScalingPoint p : series) {
                double px = x.pixel(p.seqLen());
                if (p.ok()) {
                    SeriesStyle.marker(g, impl, px, y.pixel(metric.applyAsDouble(p)), colour);
                } else if (markMissing) {
                    SeriesStyle.cross(g, px, missingY, colour);
                }
            }
            drawn.add(impl);
        }
        legend(g, drawn, metric, x1, y1);
    }

    /**
     * Sample line, marker and label (with the fitted slope) per implementation, boxed in the
     * bottom-right corner: rising curves on log-log axes leave that corner empty.
     */
    private void legend(Graphics2D g, List<Implementation> impls, ToDoubleFunction<ScalingPoint> metric, int x1, int y1) {
        Font font = ChartPen.font(false, 14);
        List<String> labels = new ArrayList<>();
        double widest = 0;
        for (Implementation impl : impls) {
            List<ScalingPoint> series = points.stream().filter(p -> p.impl() == impl).collect(Collectors.toList());
            String slope = slope(series, metric);
            String label = impl.label() + (slope == null ? "" : ", slope " + slope);
            labels.add(label);
            widest = Math.max(widest, font.getStringBounds(label, g.getFontRenderContext()).getWidth());
        }
        double w = 46 + widest + 14, h = 24.0 * impls.size() + 8;
        double bx = x1 - 12 - w, by = y1 - 12 - h;
        g.setColor(Color.WHITE);
        g.fill(new Rectangle2D.Double(bx, by, w, h));
        g.setColor(GRID);
        g.setStroke(new BasicStroke(1f));
        g.draw(new Rectangle2D.Double(bx, by, w, h));
        for (int i = 0; i < impls.size(); i++) {
            Implementation impl = impls.get(i);
            double ly = by + 16 + 24 * i, lx = bx + 8;
            Color colour = SeriesStyle.colour(impl);
            g.setColor(colour);
            g.setStroke(SeriesStyle.stroke(impl, 2.5f));
            g.draw(new Line2D.Double(lx, ly, lx + 36, ly));
            SeriesStyle.marker(g, impl, lx + 18, ly, colour);
            ChartPen.text(g, labels.get(i), lx + 46, ly + 5, font, TEXT, 0);
        }
    }

    /** Powers of two on the x axis, thinned out until their labels do not touch. */
    private static List<Double> xTicks(Graphics2D g, LogAxis x, Font font) {
        for (int stride = 1; ; stride++) {
            List<Double> ticks = x.powersOfTwo(stride);
            double room = ticks.size() < 2 ? Double.MAX_VALUE : x.pixel(ticks.get(1)) - x.pixel(ticks.get(0));
            double widest = 0;
            for (double t : ticks) {
                widest = Math.max(widest, font.getStringBounds(LogAxis.format(t), g.getFontRenderContext()).getWidth());
            }
            if (widest + 10 <= room || ticks.size() < 2) {
                return ticks;
            }
        }
    }

    /** Least-squares slope of log(metric) against log(n) over the largest ok sizes, or null if under two. */
    static String slope(List<ScalingPoint> series, ToDoubleFunction<ScalingPoint> metric) {
        List<ScalingPoint> ok = series.stream().filter(ScalingPoint::ok)
            .sorted(Comparator.comparingInt(ScalingPoint::seqLen).reversed()).limit(SLOPE_POINTS)
            .collect(Collectors.toList());
        if (ok.size() < 2) {
            return null;
        }
        double sx = 0, sy = 0, sxx = 0, sxy = 0;
        for (ScalingPoint p : ok) {
            double lx = Math.log(p.seqLen()), ly = Math.log(metric.applyAsDouble(p));
            sx += lx;
            sy += ly;
            sxx += lx * lx;
            sxy += lx * ly;
        }
        int k = ok.size();
        return String.format(Locale.ROOT, "%.2f", (k * sxy - sx * sy) / (k * sxx - sx * sx));
    }

    /** The children's heap limit, when every point reports the same one. */
    private Optional<Double> heapLimit() {
        List<Double> limits = points.stream().map(ScalingPoint::heapMaxMb).filter(Double::isFinite).distinct()
            .collect(Collectors.toList());
        return limits.size() == 1 ? Optional.of(limits.get(0)) : Optional.empty();
    }

    /** Footnotes: how it was measured, and why points are missing. */
    private void notes(Graphics2D g, int y) {
        Font font = ChartPen.font(false, 13);
        List<String> lines = new ArrayList<>();
        lines.add("Each point runs in a fresh JVM. Time: median of the timed passes after a warm-up. Memory: peak heap "
            + "during one pass (Q, K, V, output, scratch/scores) above the heap in use before the inputs existed.");
        for (ScalingPoint p : points) {
            if (!p.ok()) {
                lines.add("\u00d7 " + p.impl().id() + " at n = " + p.seqLen() + ": " + p.status().replace('_', ' ')
                    + (p.reason() == null ? "" : " (" + p.reason() + ")"));
            }
        }
        for (String note : lines) {
            for (String line : ChartPen.wrap(g, note, font, WIDTH - LEFT - RIGHT)) {
                ChartPen.text(g, line, LEFT, y, font, NOTE, 0);
                y += 19;
            }
        }
    }
}

package io.sparkattention.examples.scaling;

import javax.imageio.ImageIO;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.Stroke;
import java.awt.geom.AffineTransform;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Line2D;
import java.awt.geom.Path2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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

    private static final String FONT = "DejaVu Sans";
    private static final Color TEXT = new Color(0x222222);
    private static final Color GRID = new Color(0xe4e4e4);
    private static final Color AXIS = new Color(0x444444);
    private static final Color NOTE = new Color(0x555555);
    /** matplotlib's first two default colours (C0 blue, C1 orange), as the notebook's plot has them. */
    private static final Map<Implementation, Color> COLOURS = new EnumMap<>(Map.of(
        Implementation.TILED, new Color(0x1f77b4), Implementation.NAIVE, new Color(0xff7f0e)));

    static {
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
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
            text(g, "Attention: time and memory against sequence length", WIDTH / 2.0, 32, font(true, 20), TEXT, 0.5);
            text(g, subtitle, WIDTH / 2.0, 56, font(false, 13), NOTE, 0.5);

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
        Path target = file.toAbsolutePath();
        Path temp = target.resolveSibling("." + target.getFileName() + "." + ProcessHandle.current().pid() + ".tmp");
        try {
            try (OutputStream out = Files.newOutputStream(temp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING)) {
                if (!ImageIO.write(image, "png", out)) {
                    throw new IOException("no PNG writer in this JVM");
                }
            }
            try {
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temp);
        }
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
        Font tickFont = font(false, 13);
        for (double v : y.minorTicks()) {
            line(g, x0 - 4, y.pixel(v), x0, y.pixel(v), AXIS, 1f);
        }
        for (double v : y.majorTicks()) {
            double py = y.pixel(v);
            line(g, x0, py, x1, py, GRID, 1f);
            line(g, x0 - 7, py, x0, py, AXIS, 1f);
            text(g, LogAxis.format(v), x0 - 10, py + 5, tickFont, TEXT, 1);
        }
        List<Double> xTicks = xTicks(g, x, tickFont);
        for (double v : xTicks) {
            double px = x.pixel(v);
            line(g, px, y0, px, y1, GRID, 1f);
            line(g, px, y1, px, y1 + 7, AXIS, 1f);
            text(g, LogAxis.format(v), px, y1 + 24, tickFont, TEXT, 0.5);
        }
        g.setColor(AXIS);
        g.setStroke(new BasicStroke(1.2f));
        g.draw(new Rectangle2D.Double(x0, y0, x1 - x0, y1 - y0));

        text(g, title, (x0 + x1) / 2.0, y0 - 10, font(true, 16), TEXT, 0.5);
        text(g, "sequence length n (L = S, log scale)", (x0 + x1) / 2.0, y1 + 50, font(false, 14), TEXT, 0.5);
        AffineTransform saved = g.getTransform();
        g.rotate(-Math.PI / 2, x0 - 62, (y0 + y1) / 2.0);
        text(g, yTitle + ", log scale", x0 - 62, (y0 + y1) / 2.0, font(false, 14), TEXT, 0.5);
        g.setTransform(saved);

        double missingY = y0 + 12;
        for (double limit : extra) {
            double py = y.pixel(limit);
            line(g, x0, py, x1, py, NOTE, 1.3f, new float[] {3, 4});
            text(g, "heap limit " + LogAxis.format(Math.round(limit)) + " MiB", x0 + 8, py - 6, font(false, 12), NOTE, 0);
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
            Color colour = COLOURS.get(impl);
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
            g.setStroke(stroke(impl, 2.5f));
            g.draw(path);
            for (ScalingPoint p : series) {
                double px = x.pixel(p.seqLen());
                if (p.ok()) {
                    marker(g, impl, px, y.pixel(metric.applyAsDouble(p)), colour);
                } else if (markMissing) {
                    cross(g, px, missingY, colour);
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
        Font font = font(false, 14);
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
            Color colour = COLOURS.get(impl);
            g.setColor(colour);
            g.setStroke(stroke(impl, 2.5f));
            g.draw(new Line2D.Double(lx, ly, lx + 36, ly));
            marker(g, impl, lx + 18, ly, colour);
            text(g, labels.get(i), lx + 46, ly + 5, font, TEXT, 0);
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
        Font font = font(false, 13);
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
            for (String line : wrap(g, note, font, WIDTH - LEFT - RIGHT)) {
                text(g, line, LEFT, y, font, NOTE, 0);
                y += 19;
            }
        }
    }

    /** {@code text} broken at spaces into lines of at most {@code width} pixels. */
    private static List<String> wrap(Graphics2D g, String text, Font font, double width) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : text.split(" ")) {
            String candidate = line.length() == 0 ? word : line + " " + word;
            if (line.length() > 0 && font.getStringBounds(candidate, g.getFontRenderContext()).getWidth() > width) {
                lines.add(line.toString());
                line = new StringBuilder(word);
            } else {
                line = new StringBuilder(candidate);
            }
        }
        if (line.length() > 0) {
            lines.add(line.toString());
        }
        return lines;
    }

    private static Stroke stroke(Implementation impl, float width) {
        return impl == Implementation.NAIVE
            ? new BasicStroke(width, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 10f, new float[] {9, 6}, 0)
            : new BasicStroke(width, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND);
    }

    private static void marker(Graphics2D g, Implementation impl, double x, double y, Color colour) {
        double r = 5;
        g.setColor(colour);
        g.setStroke(new BasicStroke(1.5f));
        if (impl == Implementation.NAIVE) {
            g.fill(new Rectangle2D.Double(x - r, y - r, 2 * r, 2 * r));
        } else {
            g.fill(new Ellipse2D.Double(x - r, y - r, 2 * r, 2 * r));
        }
    }

    private static void cross(Graphics2D g, double x, double y, Color colour) {
        double r = 7;
        g.setColor(colour);
        g.setStroke(new BasicStroke(3f, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND));
        g.draw(new Line2D.Double(x - r, y - r, x + r, y + r));
        g.draw(new Line2D.Double(x - r, y + r, x + r, y - r));
    }

    private static void line(Graphics2D g, double x1, double y1, double x2, double y2, Color colour, float width) {
        line(g, x1, y1, x2, y2, colour, width, null);
    }

    private static void line(Graphics2D g, double x1, double y1, double x2, double y2, Color colour, float width,
                             float[] dash) {
        g.setColor(colour);
        g.setStroke(dash == null ? new BasicStroke(width)
            : new BasicStroke(width, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, dash, 0));
        g.draw(new Line2D.Double(x1, y1, x2, y2));
    }

    /** Text with its baseline at y; {@code anchor} 0 = starts at x, 0.5 = centred, 1 = ends at x. */
    private static void text(Graphics2D g, String s, double x, double y, Font font, Color colour, double anchor) {
        g.setFont(font);
        g.setColor(colour);
        double w = font.getStringBounds(s, g.getFontRenderContext()).getWidth();
        g.drawString(s, (float) (x - anchor * w), (float) y);
    }

    private static Font font(boolean bold, float size) {
        return new Font(FONT, bold ? Font.BOLD : Font.PLAIN, 1).deriveFont(size);
    }
}

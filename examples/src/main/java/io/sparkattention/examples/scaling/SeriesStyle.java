package io.sparkattention.examples.scaling;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.Stroke;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Line2D;
import java.awt.geom.Rectangle2D;

/**
 * How each implementation's series looks: colour, line and marker. Colour is doubled by line
 * style and marker shape (solid line and circles for tiled, dashed line and squares for naive),
 * so the plot also reads in greyscale and for colour-blind readers.
 */
final class SeriesStyle {

    /** matplotlib's first two default colours (C0 blue, C1 orange), as the notebook's plot has them. */
    static final int TILED_RGB = 0x1f77b4;
    static final int NAIVE_RGB = 0xff7f0e;
    /** Marker radius and the half-size of the "did not run" cross. */
    private static final double MARKER_RADIUS = 5;
    private static final double CROSS_RADIUS = 7;

    private SeriesStyle() {
    }

    static Color colour(Implementation impl) {
        return new Color(impl == Implementation.NAIVE ? NAIVE_RGB : TILED_RGB);
    }

    static Stroke stroke(Implementation impl, float width) {
        return impl == Implementation.NAIVE
            ? new BasicStroke(width, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 10f, new float[] {9, 6}, 0)
            : new BasicStroke(width, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND);
    }

    static void marker(Graphics2D g, Implementation impl, double x, double y, Color colour) {
        double r = MARKER_RADIUS;
        g.setColor(colour);
        if (impl == Implementation.NAIVE) {
            g.fill(new Rectangle2D.Double(x - r, y - r, 2 * r, 2 * r));
        } else {
            g.fill(new Ellipse2D.Double(x - r, y - r, 2 * r, 2 * r));
        }
    }

    /** The mark of a point that did not run (skipped, out of memory). */
    static void cross(Graphics2D g, double x, double y, Color colour) {
        double r = CROSS_RADIUS;
        g.setColor(colour);
        g.setStroke(new BasicStroke(3f, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND));
        g.draw(new Line2D.Double(x - r, y - r, x + r, y + r));
        g.draw(new Line2D.Double(x - r, y + r, x + r, y - r));
    }
}

package io.sparkattention.viz;

/**
 * One heatmap panel: a rows×cols slice of a weights array (row-major from {@code offset}), its
 * title and its colour scale.
 */
final class Panel {

    final String title;
    final float[] values;
    final int offset;
    final int rows;
    final int cols;
    final ColorScale scale;

    Panel(String title, float[] values, int offset, int rows, int cols, ColorScale scale) {
        this.title = title;
        this.values = values;
        this.offset = offset;
        this.rows = rows;
        this.cols = cols;
        this.scale = scale;
    }

    float value(int row, int col) {
        return values[offset + row * cols + col];
    }

    /** True when some cell is NaN or infinite, i.e. drawn as masked. */
    boolean hasMasked() {
        for (int i = offset, end = offset + rows * cols; i < end; i++) {
            if (!Float.isFinite(values[i])) {
                return true;
            }
        }
        return false;
    }
}

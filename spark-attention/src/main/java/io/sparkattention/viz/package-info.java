/**
 * Attention pictures: heatmaps of attention weights with token labels, as PNG (headless Java 2D)
 * or as a self-contained HTML page with inline SVG.
 *
 * <p>{@link io.sparkattention.viz.AttentionHeatmap} renders one sequence's weights — L×S, or
 * H×L×S drawn as one panel per head plus their average — with queries on the rows and keys on the
 * columns. {@link io.sparkattention.viz.HeatmapPage} puts several heatmaps on one page next to
 * their passages. {@link io.sparkattention.viz.HeatmapRows} reads the weights (and tokens) of one
 * Spark row; it is the only class here that uses Spark.
 */
package io.sparkattention.viz;

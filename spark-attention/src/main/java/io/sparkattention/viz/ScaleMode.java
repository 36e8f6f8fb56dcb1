package io.sparkattention.viz;

/** Whether the panels of a heatmap share one colour scale or each has its own. */
public enum ScaleMode {
    /**
     * One range over all panels and one colour bar: colours compare across heads (a diffuse head
     * looks darker than a sharp one).
     */
    SHARED,
    /**
     * Each panel is scaled to its own range and gets its own colour bar: shows the structure of
     * every head, at the price of colours meaning different values in different panels.
     */
    PER_PANEL
}

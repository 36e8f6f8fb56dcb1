package io.sparkattention.kernel;

/**
 * What a pass does at each step of the {@link TileWalk}: the forward pass, the weights pass and
 * the backward pass are its subclasses. Coordinates are the walk's view coordinates (query rows
 * and keys counted from the view's corner); the global positions the masks need are the walk's
 * {@code q0 + row} and {@code k0 + key}.
 *
 * <p>Implementations keep their per-head views in fields set at construction and their
 * per-block state in fields set by {@link #beginBlock}: nothing is allocated per tile or strip.
 */
abstract class StripVisitor {

    /**
     * A block of {@code bq} queries starting at row {@code i0} begins. {@code visible}: whether
     * any of its queries sees any key (when false, no tile of the block follows).
     */
    abstract void beginBlock(int i0, int bq, boolean visible);

    /** The keys {@code [j0, j1)} of the current block's next tile, at least one of them visible. */
    abstract void beginTile(int j0, int j1);

    /**
     * The strip of {@code w} queries at row {@code r0} of the current block against the keys
     * {@code [c0, c1)} of the current tile that its queries may see ({@code c0 < c1}).
     */
    abstract void strip(int r0, int w, int c0, int c1);

    /** The current block's tiles are done. */
    abstract void endBlock();
}

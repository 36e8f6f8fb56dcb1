package io.sparkattention.kernel;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Locale;

/**
 * Picks the {@link TileOps} implementation once per JVM and logs it.
 *
 * <p>System property {@value #PROPERTY}: {@code auto} (default) or {@code blas}.
 */
final class TileOpsChoice {

    /** System property that forces the tile implementation. */
    static final String PROPERTY = "sparkattention.tileops";

    private static final Logger LOG = LoggerFactory.getLogger(TileOpsChoice.class);

    static final TileOps INSTANCE = choose(System.getProperty(PROPERTY, "auto"));

    private TileOpsChoice() {
    }

    static TileOps choose(String requested) {
        TileOps ops;
        switch (requested.trim().toLowerCase(Locale.ROOT)) {
            case "auto":
            case "blas":
                ops = new BlasTileOps(Blas.get());
                break;
            default:
                throw new IllegalArgumentException("system property " + PROPERTY + "=" + requested
                    + ": expected auto or blas");
        }
        LOG.info("attention tile products: {} ({}={})", ops.name(), PROPERTY, requested);
        return ops;
    }
}

package io.sparkattention.viz;

/**
 * The one place that touches AWT first. Pictures are drawn into off-screen images only, so AWT
 * runs headless ({@code java.awt.headless=true}) unless the application already chose a mode:
 * no display, X server or window system is needed, on a cluster node or in a container.
 */
final class Java2D {

    static {
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
    }

    private Java2D() {
    }

    /** Makes sure the static initialiser above has run; call before any AWT class is used. */
    static void init() {
        // The work happens in the static initialiser, exactly once per class loader.
    }
}

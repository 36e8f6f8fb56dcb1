package io.sparkattention.kernel;

/**
 * The one rule for splitting a width into heads, written once: {@code heads ≥ 1} divides
 * {@code width ≥ 1}, and the head dimension is {@code width / heads}; with grouped-query
 * attention, {@code numKvHeads ≥ 1} divides {@code numHeads}. Every layer, stage, reader and
 * command checks its widths here, so the rule and its message are the same everywhere:
 * {@code "numHeads (5) must divide embed_dim (16)"}.
 */
public final class Heads {

    private Heads() {
    }

    /**
     * {@code width / heads}.
     *
     * @param headsName the heads' name in the message ("numHeads", "--num-heads")
     * @param widthName the width's name in the message ("embed_dim", "the query width")
     * @throws IllegalArgumentException "headsName (heads) must divide widthName (width)" when
     *                                  heads &lt; 1, width &lt; 1 or heads does not divide width
     */
    public static int headDim(int width, int heads, String headsName, String widthName) {
        return headDim(width, heads, headsName, widthName, "");
    }

    /**
     * {@link #headDim(int, int, String, String)} whose message ends with {@code context}
     * (", the width of column query").
     */
    public static int headDim(int width, int heads, String headsName, String widthName, String context) {
        if (heads < 1 || width < 1 || width % heads != 0) {
            throw new IllegalArgumentException(headsName + " (" + heads + ") must divide " + widthName + " (" + width
                + ")" + context);
        }
        return width / heads;
    }

    /**
     * Checks grouped-query heads: {@code numKvHeads ≥ 1} divides {@code numHeads ≥ 1}.
     *
     * @throws IllegalArgumentException "numKvHeads (k) must divide numHeads (h)"
     */
    public static void checkGroups(int numHeads, int numKvHeads) {
        checkGroups(numHeads, numKvHeads, "numHeads", "numKvHeads");
    }

    /**
     * {@link #checkGroups(int, int)} with the two counts' names in the message ("--num-heads",
     * "--num-kv-heads").
     *
     * @throws IllegalArgumentException "kvHeadsName (k) must divide headsName (h)"
     */
    public static void checkGroups(int numHeads, int numKvHeads, String headsName, String kvHeadsName) {
        if (numHeads < 1 || numKvHeads < 1 || numHeads % numKvHeads != 0) {
            throw new IllegalArgumentException(kvHeadsName + " (" + numKvHeads + ") must divide " + headsName + " ("
                + numHeads + ")");
        }
    }
}

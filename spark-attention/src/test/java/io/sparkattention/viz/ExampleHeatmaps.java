package io.sparkattention.viz;

import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.RowMask;
import io.sparkattention.kernel.Workspace;
import io.sparkattention.nn.Attention;
import io.sparkattention.nn.AttentionWeightsMode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The example pictures of docs/images: attention weights computed by the library's kernel
 * ({@link Attention#compute} with per-head weights) on the opening of Pride and Prejudice, with
 * four hand-built heads whose patterns are easy to recognise — the same word, the previous word,
 * the next word, a local window — instead of an untrained model's noise.
 *
 * <p>Queries and keys are built from a random vector per distinct word (the same word, the same
 * vector) and sinusoidal position codes; shifting a position code by one place is a rotation of
 * each (sin, cos) pair, so a query made of rotated codes matches the previous or next key.
 *
 * <p>{@code main(dir)} writes {@code heatmap-12-tokens.png} (copied to
 * {@code docs/images/heatmap-example.png}), {@code heatmap-80-tokens-causal.png} and an HTML page;
 * {@code ExampleHeatmapsTest} renders the same into a temporary directory. To regenerate:
 * <pre>
 * mvn -q -o -pl examples -am package -DskipTests &amp;&amp; mvn -q -o -pl spark-attention test-compile
 * java --add-modules=jdk.incubator.vector -cp spark-attention/target/test-classes:spark-attention/target/classes:$(cat examples/target/launcher/classpath) \
 *     io.sparkattention.viz.ExampleHeatmaps /tmp/pictures
 * </pre>
 */
public final class ExampleHeatmaps {

    /** The opening of Pride and Prejudice (public domain), split into words and punctuation. */
    static final String TEXT = "It is a truth universally acknowledged , that a single man in possession of a good "
        + "fortune , must be in want of a wife . However little known the feelings or views of such a man may be on "
        + "his first entering a neighbourhood , this truth is so well fixed in the minds of the surrounding families "
        + ", that he is considered the rightful property of some one or other of their daughters . \" My dear Mr. "
        + "Bennet , \" said his lady to him one day , \" have you heard that Netherfield Park is let at last ? \"";

    /** Heads and their width: four heads of 16. */
    static final int HEADS = 4;
    static final int HEAD_DIM = 16;
    /** Strength of each head's pattern (larger: sharper attention). */
    private static final float SAME_WORD = 3.2f;
    private static final float SHIFT = 3.4f;
    private static final float WINDOW = 2.6f;

    private ExampleHeatmaps() {
    }

    /**
     * Writes the example pictures.
     *
     * @param args the output directory
     * @throws Exception if a file cannot be written
     */
    public static void main(String[] args) throws Exception {
        Path dir = Paths.get(args.length > 0 ? args[0] : ".");
        Files.createDirectories(dir);
        List<String> twelve = tokens(12);
        heatmap(twelve, false).title("Pride and Prejudice, first 12 tokens: four heads and their average")
            .writePng(dir.resolve("heatmap-12-tokens.png"));
        List<String> eighty = tokens(80);
        // Causal rows near the start see a handful of keys and give them weights near 1: a colour
        // range up to 0.5 keeps the rest of the picture from turning uniformly dark.
        AttentionHeatmap causal = heatmap(eighty, true).range(0, 0.5)
            .title("Pride and Prejudice, first 80 tokens, causal (colours capped at 0.5): four heads and their average");
        causal.writePng(dir.resolve("heatmap-80-tokens-causal.png"));
        causal.writeHtml(dir.resolve("heatmap-80-tokens-causal.html"), String.join(" ", eighty));
    }

    /** The first {@code n} tokens of {@link #TEXT}. */
    static List<String> tokens(int n) {
        return Arrays.asList(TEXT.split(" ")).subList(0, n);
    }

    /** Per-head weights of the four example heads on {@code tokens}; causal ones are drawn masked above the diagonal. */
    static AttentionHeatmap heatmap(List<String> tokens, boolean causal) {
        int n = tokens.size(), width = HEADS * HEAD_DIM;
        float[] q = new float[n * width], k = new float[n * width], v = new float[n * width];
        for (int i = 0; i < n; i++) {
            float[] word = wordVector(tokens.get(i));
            float[] pos = position(i, 0), previous = position(i, -1), next = position(i, 1);
            for (int c = 0; c < HEAD_DIM; c++) {
                // Head 0, the same word: query and key are the word's vector.
                q[i * width + c] = SAME_WORD * word[c];
                k[i * width + c] = SAME_WORD * word[c];
                // Head 1, the previous word: the query is the position code of i − 1.
                q[i * width + HEAD_DIM + c] = SHIFT * previous[c];
                k[i * width + HEAD_DIM + c] = SHIFT * pos[c];
                // Head 2, the next word.
                q[i * width + 2 * HEAD_DIM + c] = SHIFT * next[c];
                k[i * width + 2 * HEAD_DIM + c] = SHIFT * pos[c];
                // Head 3, a local window: position codes, with a little of the word.
                q[i * width + 3 * HEAD_DIM + c] = WINDOW * pos[c] + 0.8f * word[c];
                k[i * width + 3 * HEAD_DIM + c] = WINDOW * pos[c] + 0.8f * word[c];
            }
        }
        FlashAttention kernel = new FlashAttention(AttentionSpec.defaults().withCausal(causal));
        Attention.Output out = Attention.compute(kernel, AttentionShape.self(n, HEADS, HEAD_DIM), q, k, v, RowMask.NONE,
            AttentionWeightsMode.PER_HEAD, new Workspace());
        AttentionHeatmap heatmap = AttentionHeatmap.of(out.weights(), HEADS, n, n).tokens(tokens);
        if (causal) {
            boolean[] allowed = new boolean[n * n];
            for (int i = 0; i < n; i++) {
                Arrays.fill(allowed, i * n, i * n + i + 1, true);
            }
            heatmap = heatmap.masked(allowed);
        }
        return heatmap;
    }

    /** A unit vector per distinct (lower-cased) word. */
    private static float[] wordVector(String word) {
        SplittableRandom random = new SplittableRandom(word.toLowerCase().hashCode());
        float[] x = new float[HEAD_DIM];
        double norm = 0;
        for (int c = 0; c < HEAD_DIM; c++) {
            x[c] = (float) (random.nextDouble() * 2 - 1);
            norm += x[c] * x[c];
        }
        for (int c = 0; c < HEAD_DIM; c++) {
            x[c] /= (float) Math.sqrt(norm);
        }
        return x;
    }

    /**
     * Sinusoidal code of position {@code i + shift}, normalised: pairs (sin, cos) of {@code (i + shift)·ω}
     * with wavelengths from 3 to 60 positions, so a one-place shift is clearly visible.
     */
    private static float[] position(int i, int shift) {
        float[] x = new float[HEAD_DIM];
        int pairs = HEAD_DIM / 2;
        for (int p = 0; p < pairs; p++) {
            double omega = 2 * Math.PI / (3 * Math.pow(20, p / (double) (pairs - 1)));
            x[2 * p] = (float) (Math.sin((i + shift) * omega) / Math.sqrt(pairs));
            x[2 * p + 1] = (float) (Math.cos((i + shift) * omega) / Math.sqrt(pairs));
        }
        return x;
    }
}

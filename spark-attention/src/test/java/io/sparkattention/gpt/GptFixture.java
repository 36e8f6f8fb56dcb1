package io.sparkattention.gpt;

import io.sparkattention.io.SafeTensors;

import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One case of src/test/resources/fixtures/gpt (made by make_gpt_fixtures.py there, whose
 * docstring is the specification): its config, starting weights, rows and expected values.
 */
public final class GptFixture {

    public final String name;
    public final Path file;
    public final SafeTensors st;
    public final GptConfig config;
    public final GptWeights weights;
    public final int[][] rows;

    private GptFixture(String name) throws IOException {
        this.name = name;
        URL url = GptFixture.class.getResource("/fixtures/gpt/" + name + ".safetensors");
        if (url == null) {
            throw new IllegalArgumentException("no GPT fixture " + name);
        }
        try {
            this.file = Paths.get(url.toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        this.st = SafeTensors.read(file);
        this.config = GptConfig.fromHuggingFaceJson(st.metadata().get("config"), name);
        Map<String, float[]> tensors = new LinkedHashMap<>();
        for (String n : GptWeights.shapes(config).keySet()) {
            tensors.put(n, st.floats("initial." + n));
        }
        this.weights = GptWeights.of(config, tensors);
        long[] ids = st.longs("input.ids");
        long[] lengths = st.longs("input.lengths");
        this.rows = new int[lengths.length][];
        int at = 0;
        for (int r = 0; r < rows.length; r++) {
            rows[r] = Arrays.stream(Arrays.copyOfRange(ids, at, at + (int) lengths[r])).mapToInt(v -> (int) v)
                .toArray();
            at += (int) lengths[r];
        }
    }

    public static GptFixture load(String name) throws IOException {
        return new GptFixture(name);
    }

    public double[] doubles(String tensor) throws IOException {
        return st.doubles(tensor);
    }

    /** expected.generated cut into each prompt's {@code max_new_tokens} ids. */
    public int[][] generated(int perRow) throws IOException {
        long[] all = st.longs("expected.generated");
        int[][] out = new int[rows.length][];
        for (int r = 0; r < rows.length; r++) {
            out[r] = new int[perRow];
            for (int i = 0; i < perRow; i++) {
                out[r][i] = (int) all[r * perRow + i];
            }
        }
        return out;
    }

    /** Asserts |actual − expected| ≤ tol·max|expected| over a row (logits: relative to the row's largest). */
    public static void assertRowClose(double[] expected, float[] actual, int off, double tol, String what) {
        double largest = 0;
        for (double e : expected) {
            largest = Math.max(largest, Math.abs(e));
        }
        for (int j = 0; j < expected.length; j++) {
            double err = Math.abs(actual[off + j] - expected[j]);
            if (!(err <= tol * largest)) {
                throw new AssertionError(what + ", column " + j + ": " + actual[off + j] + " vs " + expected[j]
                    + " (error " + err + " > " + tol + " × " + largest + ")");
            }
        }
    }
}

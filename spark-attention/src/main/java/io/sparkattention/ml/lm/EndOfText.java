package io.sparkattention.ml.lm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;

/**
 * The end-of-text id of a Hugging Face {@code tokenizer.json}: the id of its added token
 * {@value #TOKEN} (GPT-2's 50256), which packing puts between consecutive rows, as GPT-2's
 * training data separates documents. A tokenizer without one (the library's byte tokenizer) has
 * none, and packed rows then follow each other directly.
 */
final class EndOfText {

    /** GPT-2's end-of-text token. */
    static final String TOKEN = "<|endoftext|>";
    /** No end-of-text id. */
    static final int NONE = -1;

    private static final ObjectMapper JSON = new ObjectMapper();

    private EndOfText() {
    }

    /**
     * The id of {@value #TOKEN} among the file's {@code added_tokens}, or {@link #NONE}.
     *
     * @param tokenizer a tokenizer.json's bytes, or null (no tokenizer: {@link #NONE})
     * @throws IllegalArgumentException when the bytes are not JSON
     */
    static int id(byte[] tokenizer) {
        if (tokenizer == null) {
            return NONE;
        }
        JsonNode root;
        try {
            root = JSON.readTree(tokenizer);
        } catch (IOException e) {
            throw new IllegalArgumentException("the tokenizer is not a tokenizer.json: " + e.getMessage(), e);
        }
        for (JsonNode token : root.path("added_tokens")) {
            if (TOKEN.equals(token.path("content").asText()) && token.path("id").canConvertToInt()) {
                return token.path("id").asInt();
            }
        }
        return NONE;
    }
}

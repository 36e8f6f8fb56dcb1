package io.sparkattention.ml.lm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.util.Iterator;

/**
 * What a language model's training reads from a Hugging Face {@code tokenizer.json}: its
 * vocabulary's size (a new model's {@code vocab_size}) and its end-of-text id, the added token
 * {@value #END_OF_TEXT} (GPT-2's 50256), which packing puts between consecutive rows as GPT-2's
 * training data separates documents. A tokenizer without one (the library's byte tokenizer) has
 * none, and packed rows then follow each other directly.
 */
final class TokenizerFile {

    /** GPT-2's end-of-text token. */
    static final String END_OF_TEXT = "<|endoftext|>";
    /** No end-of-text id. */
    static final int NONE = -1;

    private static final ObjectMapper JSON = new ObjectMapper();

    private TokenizerFile() {
    }

    /**
     * The id of {@value #END_OF_TEXT} among the file's {@code added_tokens}, or {@link #NONE}.
     *
     * @param tokenizer a tokenizer.json's bytes, or null (no tokenizer: {@link #NONE})
     * @throws IllegalArgumentException when the bytes are not JSON
     */
    static int endOfText(byte[] tokenizer) {
        if (tokenizer == null) {
            return NONE;
        }
        for (JsonNode token : parse(tokenizer).path("added_tokens")) {
            if (END_OF_TEXT.equals(token.path("content").asText()) && token.path("id").canConvertToInt()) {
                return token.path("id").asInt();
            }
        }
        return NONE;
    }

    /**
     * The ids the tokenizer gives: one more than the largest id of its {@code model.vocab} and
     * {@code added_tokens}.
     *
     * @throws IllegalArgumentException when the bytes are not JSON or hold no vocabulary
     */
    static int vocabSize(byte[] tokenizer) {
        JsonNode root = parse(tokenizer);
        int largest = -1;
        for (Iterator<JsonNode> ids = root.path("model").path("vocab").elements(); ids.hasNext(); ) {
            largest = Math.max(largest, ids.next().asInt(-1));
        }
        for (JsonNode token : root.path("added_tokens")) {
            largest = Math.max(largest, token.path("id").asInt(-1));
        }
        if (largest < 0) {
            throw new IllegalArgumentException("the tokenizer.json has no vocabulary (model.vocab)");
        }
        return largest + 1;
    }

    private static JsonNode parse(byte[] tokenizer) {
        try {
            return JSON.readTree(tokenizer);
        } catch (IOException e) {
            throw new IllegalArgumentException("the tokenizer is not a tokenizer.json: " + e.getMessage(), e);
        }
    }
}

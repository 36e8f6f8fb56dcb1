package io.sparkattention.examples.bench;

import io.sparkattention.io.BundledModels;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

/**
 * The files of the bundled all-MiniLM-L6-v2 ({@link BundledModels}) as the encoder benchmark reads
 * them outside Spark: the ONNX model's bytes (for ONNX Runtime) and its Hugging Face tokenizer
 * through DJL directly (the texts are tokenized once, in the driver).
 */
final class BundledMiniLm {

    /** The ONNX resource ({@link BundledModels} reads the same one into the library's encoder). */
    static final String ONNX = BundledModels.ALL_MINILM_L6_V2 + ".onnx";
    /**
     * Longest input in tokens, [CLS] and [SEP] included: sentence-transformers truncates this model's
     * input at 256 (DJL's default would take the file's 128 silently).
     */
    static final int MAX_LENGTH = 256;

    private BundledMiniLm() {
    }

    /** The ONNX model's bytes (about 90 MB). */
    static byte[] onnxBytes() {
        try (InputStream in = BundledMiniLm.class.getResourceAsStream("/" + ONNX)) {
            if (in == null) {
                throw new IllegalStateException(ONNX + " is not on the class path: add " + BundledModels.MINILM_ARTIFACT);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The token ids of each text: WordPiece with [CLS] and [SEP], truncated at {@link #MAX_LENGTH}, unpadded. */
    static int[][] tokenize(List<String> texts) {
        Map<String, String> options = Map.of("truncation", "true", "maxLength", Integer.toString(MAX_LENGTH),
            "padding", "false", "addSpecialTokens", "true");
        try (InputStream in = BundledModels.tokenizerJsonStream(BundledModels.ALL_MINILM_L6_V2)) {
            return HfTokens.encode(in, options, texts);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import ai.djl.huggingface.tokenizers.Encoding;
import io.sparkattention.gpt.GptDecoder;
import io.sparkattention.ml.feature.HuggingFaceTokenizer;
import io.sparkattention.ml.feature.NativeTokenizers;
import io.sparkattention.ml.lm.GptLanguageModel;
import io.sparkattention.viz.AttentionHeatmap;

import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code heatmap --model DIR --text TEXT}: a GPT model's causal heads of one layer over a text,
 * computed here without Spark ({@link GptDecoder#attentionProbabilities}): the text tokenized with
 * the directory's {@code tokenizer.json} (no truncation), one panel per head and their average,
 * the keys after each query (which the causal mask forbids) drawn as masked.
 */
final class GptHeatmap {

    /** GPT-2's byte-level BPE marks a leading space with this symbol; the labels show a space. */
    private static final char BYTE_LEVEL_SPACE = 'Ġ';
    /** And a newline with this one. */
    private static final char BYTE_LEVEL_NEWLINE = 'Ċ';

    private GptHeatmap() {
    }

    /**
     * The heatmap of {@code layer}'s heads over {@code text}.
     *
     * @throws BadInputException naming the option: an unreadable directory, no tokenizer.json, an
     *                           empty text, a text longer than the positions, a layer outside the model
     */
    static AttentionHeatmap of(String model, String text, int layer) {
        GptLanguageModel lm;
        try {
            lm = GptLanguageModel.fromDirectory(model);
        } catch (UncheckedIOException | IllegalArgumentException e) {
            throw new BadInputException("--model " + model + ": " + ErrorReporting.oneLine(e.getMessage()), e);
        }
        if (!lm.hasTokenizer()) {
            throw new BadInputException("--model " + model + " has no tokenizer.json, which --text needs");
        }
        GptDecoder decoder = lm.decoder();
        int layers = decoder.config().layers();
        if (layer < 0 || layer >= layers) {
            throw new BadInputException("--layer must be in [0, " + layers + "), got " + layer);
        }
        byte[] json = lm.tokenizerJson();
        Encoding encoding = NativeTokenizers.get(NativeTokenizers.contentHash(json),
            HuggingFaceTokenizer.NO_TRUNCATION, () -> json, model + "/tokenizer.json").encode(text);
        long[] wide = encoding.getIds();
        if (wide.length == 0) {
            throw new BadInputException("--text is empty: it has no tokens");
        }
        int positions = decoder.config().positions();
        if (wide.length > positions) {
            throw new BadInputException("--text has " + wide.length + " tokens, more than the model's " + positions
                + " positions");
        }
        int[] ids = new int[wide.length];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = (int) wide[i];
        }
        int n = ids.length;
        boolean[] causal = new boolean[n * n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j <= i; j++) {
                causal[i * n + j] = true;
            }
        }
        return AttentionHeatmap.of(decoder.attentionProbabilities(ids, layer), decoder.config().heads(), n, n)
            .masked(causal).tokens(labels(encoding.getTokens()));
    }

    /** Byte-level BPE tokens as they read: the space and newline symbols as a space and ↵. */
    private static List<String> labels(String[] tokens) {
        List<String> out = new ArrayList<>(tokens.length);
        for (String t : tokens) {
            out.add(t.replace(BYTE_LEVEL_SPACE, ' ').replace(BYTE_LEVEL_NEWLINE, '↵'));
        }
        return out;
    }
}

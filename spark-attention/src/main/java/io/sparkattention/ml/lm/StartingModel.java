package io.sparkattention.ml.lm;

import io.sparkattention.gpt.GptConfig;
import io.sparkattention.gpt.GptTokenizers;
import io.sparkattention.gpt.GptWeights;
import io.sparkattention.ml.StageData;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Where a {@link GptLanguageModeler} fit starts: a model directory's weights and tokenizer
 * ({@code initialWeightsPath}: continued training), or a new model's config ({@code nLayer}, {@code nEmbd},
 * {@code nHead}, {@code blockSize} as its positions, the tokenizer's vocabulary, GPT-2's other
 * settings: 4·nEmbd inner width, {@code gelu_new}, LayerNorm ε 1e-5, the head tied) without
 * weights, which the network initialises as GPT-2 does from the seed.
 *
 * @param config    the model's architecture
 * @param weights   the weights to continue from, or null for a new model
 * @param tokenizer the tokenizer.json's bytes, or null (a directory without one)
 * @param blockSize the packed blocks' length: the param when set, else a loaded model's positions
 */
record StartingModel(GptConfig config, GptWeights weights, byte[] tokenizer, int blockSize) {

    /** A new model's inner width per unit of width: GPT-2's 4. */
    static final int INNER_PER_WIDTH = 4;
    /** A new model's LayerNorm ε: GPT-2's. */
    static final float LAYER_NORM_EPS = 1e-5f;

    /**
     * The start the params describe.
     *
     * @throws IllegalArgumentException naming the param that does not fit (a blockSize beyond a
     *                                  loaded model's positions, nEmbd not divisible by nHead)
     * @throws UncheckedIOException     naming the directory or file that cannot be read
     */
    static StartingModel of(LanguageModelerParams<?> params) {
        String dir = params.getInitialWeightsPath();
        if (!dir.isEmpty()) {
            LanguageModelFiles.Loaded loaded;
            try {
                loaded = LanguageModelFiles.read(dir, StageData.hadoopConf());
            } catch (IOException e) {
                String m = e.getMessage();
                throw new UncheckedIOException("initialWeightsPath " + (m != null && m.contains(dir) ? m : dir + ": " + m), e);
            }
            GptConfig config = loaded.decoder().config();
            int blockSize = params.isSet(params.blockSize()) ? params.getBlockSize() : config.positions();
            if (blockSize > config.positions()) {
                throw new IllegalArgumentException("blockSize " + blockSize + " is more than the " + config.positions()
                    + " positions (n_positions) of the model in initialWeightsPath " + dir);
            }
            return new StartingModel(config, loaded.decoder().weights(), loaded.tokenizer(), blockSize);
        }
        if (params.getNEmbd() % params.getNHead() != 0) {
            throw new IllegalArgumentException("nEmbd " + params.getNEmbd() + " is not divisible by nHead "
                + params.getNHead());
        }
        byte[] tokenizer = tokenizer(params.getTokenizer());
        GptConfig config = new GptConfig(params.getNLayer(), params.getNEmbd(), params.getNHead(),
            params.getBlockSize(), TokenizerFile.vocabSize(tokenizer), INNER_PER_WIDTH * params.getNEmbd(),
            LAYER_NORM_EPS, GptConfig.GELU_NEW, true);
        return new StartingModel(config, null, tokenizer, params.getBlockSize());
    }

    /** The tokenizer param's file: a shipped one by name, else a tokenizer.json on any Hadoop file system. */
    private static byte[] tokenizer(String name) {
        if (LanguageModelerParamSet.BYTES.equals(name)) {
            return GptTokenizers.read(GptTokenizers.BYTES);
        }
        if (LanguageModelerParamSet.GPT2.equals(name)) {
            return GptTokenizers.read(GptTokenizers.GPT2);
        }
        try {
            return StageData.readBytes(name, StageData.hadoopConf());
        } catch (UncheckedIOException e) {
            throw new UncheckedIOException("tokenizer " + name + ": " + e.getMessage(), e.getCause());
        }
    }
}

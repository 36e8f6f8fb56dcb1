package io.sparkattention.ml.feature;

import io.sparkattention.bert.BertConfig;
import io.sparkattention.bert.BertEncoder;
import io.sparkattention.bert.BertWeights;
import io.sparkattention.testing.RandomTensors;

import java.util.LinkedHashMap;
import java.util.Map;

/** Small seeded random BERTs for the encoder stage's tests. */
final class RandomBert {

    /** all-MiniLM-L6-v2's vocabulary size, so that the real tokenizer's ids fit. */
    static final int MINILM_VOCAB = 30522;

    private RandomBert() {
    }

    /**
     * A random encoder: normal weights of standard deviation 0.2, LayerNorm gains near 1.
     *
     * @param layers the layers
     * @param hidden the hidden width
     * @param heads  the heads (dividing hidden)
     * @param vocab  the vocabulary size
     * @param seed   the seed
     */
    static BertEncoder encoder(int layers, int hidden, int heads, int vocab, long seed) {
        BertConfig config = new BertConfig(layers, hidden, heads, 2 * hidden, 64, vocab, 2, 1e-12f);
        RandomTensors rnd = new RandomTensors(seed);
        Map<String, float[]> tensors = new LinkedHashMap<>();
        for (Map.Entry<String, long[]> e : BertWeights.shapes(config).entrySet()) {
            long size = 1;
            for (long d : e.getValue()) {
                size *= d;
            }
            float[] t = rnd.normal((int) size, 0.2f);
            if (e.getKey().endsWith("LayerNorm.weight")) {
                for (int i = 0; i < t.length; i++) {
                    t[i] += 1;
                }
            }
            tensors.put(e.getKey(), t);
        }
        return new BertEncoder(new BertWeights(config, tensors));
    }
}

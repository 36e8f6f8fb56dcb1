package io.sparkattention.bert;

import io.sparkattention.kernel.Heads;

import java.io.Serializable;

/**
 * The architecture of a BERT-family encoder (Hugging Face's {@code BertModel}): {@code layers}
 * post-LayerNorm transformer layers of width {@code hidden}, {@code heads} attention heads of
 * {@code hidden / heads} columns each, a feed-forward block {@code intermediate} wide with exact
 * (erf) GELU, learned absolute positions up to {@code maxPositions}, a vocabulary of
 * {@code vocabSize} token ids and {@code typeVocabSize} token types (only type 0 is used).
 *
 * @param layers        transformer layers, ≥ 1
 * @param hidden        hidden width E, ≥ 1
 * @param heads         attention heads H, ≥ 1, dividing E
 * @param intermediate  feed-forward width F, ≥ 1
 * @param maxPositions  longest sequence (rows of the position embedding), ≥ 1
 * @param vocabSize     token ids accepted, {@code [0, vocabSize)}, ≥ 1
 * @param typeVocabSize rows of the token type embedding, ≥ 1
 * @param layerNormEps  ε of every LayerNorm, finite and &gt; 0
 */
public record BertConfig(int layers, int hidden, int heads, int intermediate, int maxPositions, int vocabSize,
                         int typeVocabSize, float layerNormEps) implements Serializable {

    /** @throws IllegalArgumentException naming the first field out of range */
    public BertConfig {
        positive("layers", layers);
        positive("hidden", hidden);
        positive("heads", heads);
        positive("intermediate", intermediate);
        positive("maxPositions", maxPositions);
        positive("vocabSize", vocabSize);
        positive("typeVocabSize", typeVocabSize);
        Heads.headDim(hidden, heads, "heads", "hidden");
        if (!(layerNormEps > 0f) || Float.isInfinite(layerNormEps)) {
            throw new IllegalArgumentException("layerNormEps must be finite and > 0, got " + layerNormEps);
        }
    }

    /** Columns per head, {@code hidden / heads}. */
    public int headDim() {
        return hidden / heads;
    }

    private static void positive(String name, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(name + " must be >= 1, got " + value);
        }
    }
}

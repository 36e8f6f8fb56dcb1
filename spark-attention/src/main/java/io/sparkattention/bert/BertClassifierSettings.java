package io.sparkattention.bert;

import io.sparkattention.nn.Pooling;

import java.io.Serializable;
import java.util.Objects;

/**
 * What of a {@link BertClassifierNetwork} trains and how a row is pooled.
 *
 * @param trainableLayers the top N encoder layers train with the head; 0 = the head only; −1 =
 *                        everything, the embeddings too. At most the encoder's layer count
 *                        (checked by the network).
 * @param pooling         {@link Pooling#MEAN} (over all L tokens, [CLS] and [SEP] included) or
 *                        {@link Pooling#FIRST} (the [CLS] row)
 * @param dropout         p in [0, 1): Hugging Face's dropout sites in the trainable part, inverted
 *                        (kept values scaled by 1/(1 − p)); 0 turns dropout off
 */
public record BertClassifierSettings(int trainableLayers, Pooling pooling, double dropout) implements Serializable {

    /** @throws IllegalArgumentException naming the setting out of range */
    public BertClassifierSettings {
        if (trainableLayers < -1) {
            throw new IllegalArgumentException("trainableLayers must be >= -1 (-1 = all, embeddings too), got "
                + trainableLayers);
        }
        Objects.requireNonNull(pooling, "pooling");
        if (pooling != Pooling.MEAN && pooling != Pooling.FIRST) {
            throw new IllegalArgumentException("pooling must be mean or cls, got " + pooling.paramValue());
        }
        if (!(dropout >= 0 && dropout < 1)) {
            throw new IllegalArgumentException("dropout must be in [0, 1), got " + dropout);
        }
    }
}

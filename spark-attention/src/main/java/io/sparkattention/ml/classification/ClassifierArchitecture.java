package io.sparkattention.ml.classification;

import io.sparkattention.kernel.Heads;
import io.sparkattention.nn.AttentionClassifierNetwork;
import io.sparkattention.nn.Pooling;
import io.sparkattention.rows.RowDataException;

import java.io.Serializable;

/**
 * The shape of an attention classifier — everything but its parameter values: embedding width E,
 * heads, classes, causal, residual and pooling. Fixed when a model is fitted or loaded.
 */
final class ClassifierArchitecture implements Serializable {

    private static final long serialVersionUID = 1L;

    final int embedDim;
    final int numHeads;
    final int numClasses;
    final boolean causal;
    final boolean residual;
    final Pooling pooling;

    /**
     * @throws IllegalArgumentException when a dimension is below 1, {@code numHeads} does not
     *     divide {@code embedDim}, or there are fewer than 2 classes
     */
    ClassifierArchitecture(int embedDim, int numHeads, int numClasses, boolean causal, boolean residual,
                           Pooling pooling) {
        checkHeads(embedDim, numHeads, null);
        if (numClasses < 2) {
            throw new IllegalArgumentException("a classifier needs at least 2 classes, got " + numClasses);
        }
        this.embedDim = embedDim;
        this.numHeads = numHeads;
        this.numClasses = numClasses;
        this.causal = causal;
        this.residual = residual;
        this.pooling = pooling;
    }

    /**
     * The heads rule ({@link Heads}): E ≥ 1 and {@code numHeads} ≥ 1 divides it.
     *
     * @param widthOf what E is the width of, for the message (a column), or null
     * @throws IllegalArgumentException "numHeads (h) must divide the embedding width E (e) of widthOf"
     */
    static void checkHeads(int embedDim, int numHeads, String widthOf) {
        Heads.headDim(embedDim, numHeads, "numHeads", "the embedding width E", widthOf == null ? "" : " of " + widthOf);
    }

    /**
     * The tokens rule of one sequence given to the model: at least one token, each {@code embedDim} wide.
     *
     * @param column the features column, for the message
     * @throws RowDataException naming the column when the rule does not hold
     */
    void checkTokens(String column, int tokens, int width) {
        if (tokens < 1) {
            throw new RowDataException("column " + column + " has no token");
        }
        if (width != embedDim) {
            throw new RowDataException("column " + column + " has " + width + " values per token, expected "
                + "the model's embedding width " + embedDim);
        }
    }

    /** The network of this shape (a new instance: networks are cheap, parameters live apart). */
    AttentionClassifierNetwork network() {
        return new AttentionClassifierNetwork(embedDim, numHeads, numClasses, causal, residual, pooling);
    }

    /** The pooling param's value of this shape: {@code mean}, {@code first} or {@code last}. */
    String poolingName() {
        return pooling.paramValue();
    }

    @Override
    public String toString() {
        return "embed_dim=" + embedDim + ", num_heads=" + numHeads + ", num_classes=" + numClasses + ", causal="
            + causal + ", residual=" + residual + ", pooling=" + poolingName();
    }
}

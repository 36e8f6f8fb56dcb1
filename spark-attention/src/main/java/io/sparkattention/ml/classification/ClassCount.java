package io.sparkattention.ml.classification;

import io.sparkattention.io.ClassifierStateDict;
import org.apache.spark.ml.attribute.Attribute;
import org.apache.spark.ml.attribute.Attribute$;
import org.apache.spark.ml.attribute.BinaryAttribute;
import org.apache.spark.ml.attribute.NominalAttribute;
import org.apache.spark.sql.types.StructType;

import java.io.Serializable;

/**
 * The classes a fit trains, settled on the driver before any row is decoded, so that a stray label
 * is refused by the row check and nothing is ever sized by it. K comes from, in this order:
 * <ol>
 *   <li>the {@code numClasses} param, when set (&gt; 0);</li>
 *   <li>the label column's ML attribute, as MLlib's {@code Classifier.getNumClasses} reads it: a
 *       {@code NominalAttribute} with its number of values, or a {@code BinaryAttribute} (2);</li>
 *   <li>the initial weights' {@code classifier.weight} rows;</li>
 *   <li>else the largest label + 1 (at least 2), where every label must be below
 *       {@link #MAX_INFERRED_CLASSES}.</li>
 * </ol>
 * Every source that is given must agree with the first. A label that is not an integer in [0, K)
 * — or [0, {@value #MAX_INFERRED_CLASSES}) when K is inferred — is a row problem naming the
 * label column.
 */
final class ClassCount implements Serializable {

    private static final long serialVersionUID = 1L;

    /**
     * The most classes inferred from the labels alone, as MLlib's classifiers refuse labels
     * beyond their {@code maxNumClasses} (100 there): a label of 10⁸ is far likelier a stray value
     * than a class, and would size the classifier's K×E weights and their gradient by itself. Set
     * {@code numClasses} (or the label column's metadata) to train more classes.
     */
    static final int MAX_INFERRED_CLASSES = 1000;

    /** Labels must be below this. */
    private final int limit;
    /** Whether K is {@link #limit} (given) rather than inferred from the largest label. */
    private final boolean given;
    /** Where a given K comes from, for messages. */
    private final String source;

    private ClassCount(int limit, boolean given, String source) {
        this.limit = limit;
        this.given = given;
        this.source = source;
    }

    /**
     * Settles the class count from the sources that are given.
     *
     * @param param        the {@code numClasses} param, 0 when unset
     * @param declared     the label column's declared count, or -1
     * @param fromWeights  the initial weights' class count, or -1
     * @param weightsPath  the initial weights' path (for messages)
     * @throws IllegalArgumentException when two given sources disagree
     */
    static ClassCount of(int param, int declared, int fromWeights, String weightsPath) {
        ClassCount count;
        if (param > 0) {
            count = new ClassCount(param, true, "numClasses");
            count.agree(declared, "the label column's metadata");
        } else if (declared > 0) {
            count = new ClassCount(declared, true, "the label column's metadata");
        } else if (fromWeights > 0) {
            return new ClassCount(fromWeights, true, "the initial weights " + weightsPath + " (classifier.weight)");
        } else {
            return new ClassCount(MAX_INFERRED_CLASSES, false, null);
        }
        if (fromWeights > 0 && fromWeights != count.limit) {
            throw new IllegalArgumentException(weightsPath + ": tensor '" + ClassifierStateDict.CLASSIFIER_WEIGHT + "' has " + fromWeights
                + " classes, but " + count.source + " declares " + count.limit);
        }
        return count;
    }

    /** The class count the label column's ML attribute declares (MLlib's {@code Classifier.getNumClasses}), or -1. */
    static int declared(StructType schema, String labelCol) {
        Attribute attribute = Attribute$.MODULE$.fromStructField(schema.apply(labelCol));
        if (attribute instanceof BinaryAttribute) {
            return 2;
        }
        if (attribute instanceof NominalAttribute && ((NominalAttribute) attribute).getNumValues().isDefined()) {
            return (Integer) ((NominalAttribute) attribute).getNumValues().get();
        }
        return -1;
    }

    private void agree(int other, String otherSource) {
        if (other > 0 && other != limit) {
            throw new IllegalArgumentException("numClasses is " + limit + ", but " + otherSource + " declares "
                + other + " classes");
        }
    }

    /**
     * K for a set whose largest label is {@code largestLabel}.
     *
     * @param largestLabel the largest label of the (checked) rows
     * @return the given count, or {@code max(2, largestLabel + 1)}
     */
    int numClasses(int largestLabel) {
        return given ? limit : Math.max(2, largestLabel + 1);
    }

    /**
     * What is wrong with one row's label, naming the column, or null when it is a class index.
     *
     * @param label    the row's label
     * @param labelCol the label column's name
     */
    String problem(double label, String labelCol) {
        if (!(label >= 0) || label != Math.rint(label)) {
            return "column " + labelCol + " is " + label + ", not a class index (an integer >= 0)";
        }
        if (label >= limit) {
            return "column " + labelCol + " is " + label + ", outside [0, " + limit + ")" + (given
                ? ": the " + limit + " classes of " + source
                : ": without numClasses or the label column's metadata, K is the largest label + 1 and at most "
                    + MAX_INFERRED_CLASSES + "; set numClasses to train more classes");
        }
        return null;
    }
}

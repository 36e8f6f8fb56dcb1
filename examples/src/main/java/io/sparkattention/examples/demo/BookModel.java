package io.sparkattention.examples.demo;

import io.sparkattention.ml.classification.AttentionClassificationModel;
import io.sparkattention.ml.classification.AttentionClassifier;
import io.sparkattention.ml.feature.SinusoidalPositionalEncoding;
import org.apache.spark.ml.Pipeline;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.PipelineStage;
import org.apache.spark.ml.feature.IndexToString;
import org.apache.spark.ml.feature.RegexTokenizer;
import org.apache.spark.ml.feature.StringIndexer;
import org.apache.spark.ml.feature.StringIndexerModel;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

import static org.apache.spark.sql.functions.col;

/**
 * The stages of the book classifier, fitted one at a time on the training passages and then
 * assembled into the pipeline the demo saves:
 * <pre>
 *   text → RegexTokenizer → tokens → TokenEmbedding (Word2Vec) → SinusoidalPositionalEncoding → x (L×E)
 *     → AttentionClassifier → rawPrediction, probability, prediction → IndexToString → predicted_book
 * </pre>
 * The label is the book's index among the corpus's books in alphabetical order (a
 * {@link StringIndexer} over the book names, so the label column carries nominal metadata and
 * the classifier knows every class, even one with no training passage).
 */
final class BookModel {

    /**
     * Partitions of the classifier's training rows, hashed by (book, passage): twice the cores the
     * demo is sized for, so one slow task does not hold a step; fixed, so every master trains the
     * same model.
     */
    static final int TRAINING_PARTITIONS = 4;

    private BookModel() {
    }

    /** The tokenizer of the whole demo: lower-case runs of letters, digits and apostrophes. */
    static RegexTokenizer tokenizer() {
        return new RegexTokenizer().setInputCol("text").setOutputCol("tokens")
            .setPattern("[^\\p{L}\\p{N}']+").setToLowercase(true);
    }

    /** The book → label index, fitted on every passage's book name (the corpus's list of books). */
    static StringIndexerModel labels(Dataset<Row> passages) {
        return new StringIndexer().setInputCol("book").setOutputCol("label").setStringOrderType("alphabetAsc")
            .fit(passages.select("book"));
    }

    /** Word2Vec token vectors fitted on the training passages' tokens alone. */
    static TokenEmbeddingModel embedding(Dataset<Row> trainingTokens, int dim, long seed) {
        return new TokenEmbedding().setInputCol("tokens").setOutputCol("embeddings").setVectorSize(dim).setSeed(seed)
            .setNormalize(true).fit(trainingTokens);
    }

    /** Word + position vectors: the sequence column x every model after the tokens sees. */
    static SinusoidalPositionalEncoding positions() {
        return new SinusoidalPositionalEncoding().setInputCol("embeddings").setOutputCol("x").setAddToInput(true);
    }

    /**
     * Trains the attention classifier on the x and label columns of the training passages.
     *
     * @param training rows with x and label (nominal metadata)
     */
    static AttentionClassificationModel train(Dataset<Row> training, AttentionDemo.Settings s) {
        Dataset<Row> rows = training.select("book", "passage", "x", "label")
            .repartition(TRAINING_PARTITIONS, col("book"), col("passage"));
        return new AttentionClassifier().setFeaturesCol("x").setLabelCol("label").setNumHeads(s.heads)
            .setSolver("adam").setMaxIter(s.maxIter).setStepSize(s.stepSize).setMiniBatchFraction(s.miniBatchFraction)
            .setSeed(s.seed).fit(rows);
    }

    /**
     * The saved pipeline from raw text to the predicted book, over a dataset with a {@code text}
     * column; its stages are already fitted, so assembling it trains nothing.
     */
    static PipelineModel assemble(Dataset<Row> passages, StringIndexerModel labels, TokenEmbeddingModel embedding,
                                  AttentionClassificationModel classifier) {
        IndexToString names = new IndexToString().setInputCol("prediction").setOutputCol("predicted_book")
            .setLabels(labels.labelsArray()[0]);
        return new Pipeline().setStages(new PipelineStage[] {tokenizer(), embedding, positions(), classifier, names})
            .fit(passages.select("text"));
    }
}

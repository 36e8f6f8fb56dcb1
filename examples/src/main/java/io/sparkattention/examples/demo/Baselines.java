package io.sparkattention.examples.demo;

import org.apache.spark.ml.Pipeline;
import org.apache.spark.ml.PipelineStage;
import org.apache.spark.ml.classification.LogisticRegression;
import org.apache.spark.ml.evaluation.MulticlassClassificationEvaluator;
import org.apache.spark.ml.feature.HashingTF;
import org.apache.spark.ml.feature.IDF;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.VectorUDT;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF1;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.desc;
import static org.apache.spark.sql.functions.udf;

/**
 * The models the attention classifier is compared with, each fitted on the training passages and
 * scored by its accuracy on the held-out ones. Their settings are fixed in advance, never tuned on
 * the held-out passages:
 * <ul>
 *   <li>the majority class of the training passages;</li>
 *   <li>MLlib's {@link LogisticRegression} on TF-IDF ({@link HashingTF} + {@link IDF}) of the tokens:
 *       word counts without order, the classic text classifier;</li>
 *   <li>the same logistic regression on the mean of the word + position vectors the attention
 *       classifier sees: the attention classifier without its attention layer (its residual path,
 *       mean pooling and linear head);</li>
 *   <li>the same logistic regression on a pretrained encoder's sentence embeddings ({@link MiniLm}).</li>
 * </ul>
 * Inputs: a {@code label} column (class index) and the {@code tokens} (array&lt;string&gt;) or
 * {@code x} (L×E array&lt;array&lt;float&gt;&gt;) column.
 */
final class Baselines {

    /** Hashed TF-IDF width: the six novels have about 15,000 distinct words, so collisions are rare. */
    static final int TFIDF_FEATURES = 1 << 16;
    /** L-BFGS iterations of both logistic regressions: each is one Spark job, and the demo has a time budget. */
    static final int LR_MAX_ITER = 50;
    /** L2 penalty of both logistic regressions (on standardised features, MLlib's default scaling). */
    static final double LR_REG_PARAM = 1e-3;

    private Baselines() {
    }

    /** The most frequent label of the training passages (the smaller label on a tie): the majority class. */
    static double majorityLabel(Dataset<Row> training) {
        return training.groupBy("label").count().orderBy(desc("count"), col("label")).first().getDouble(0);
    }

    /** Accuracy on {@code heldOut} of logistic regression on the TF-IDF of column {@code tokens}. */
    static double tfidfLogisticRegression(Dataset<Row> training, Dataset<Row> heldOut) {
        Pipeline pipeline = new Pipeline().setStages(new PipelineStage[] {
            new HashingTF().setInputCol("tokens").setOutputCol("tf").setNumFeatures(TFIDF_FEATURES),
            new IDF().setInputCol("tf").setOutputCol("tfidf"),
            logisticRegression("tfidf")});
        return accuracy(pipeline.fit(training).transform(heldOut));
    }

    /** Accuracy on {@code heldOut} of logistic regression on the mean over tokens of column {@code x}. */
    static double meanEmbeddingLogisticRegression(Dataset<Row> training, Dataset<Row> heldOut) {
        Dataset<Row> train = training.withColumn("mean_x", meanRow(col("x")));
        Dataset<Row> test = heldOut.withColumn("mean_x", meanRow(col("x")));
        return accuracy(logisticRegression("mean_x").fit(train).transform(test));
    }

    /** Accuracy on {@code heldOut} of logistic regression on the vector column {@code features}. */
    static double vectorLogisticRegression(Dataset<Row> training, Dataset<Row> heldOut, String features) {
        return accuracy(logisticRegression(features).fit(training).transform(heldOut));
    }

    /** The fraction of rows whose {@code prediction} equals their {@code label}. */
    static double accuracy(Dataset<Row> predictions) {
        return new MulticlassClassificationEvaluator().setLabelCol("label").setPredictionCol("prediction")
            .setMetricName("accuracy").evaluate(predictions);
    }

    private static LogisticRegression logisticRegression(String featuresCol) {
        return new LogisticRegression().setFeaturesCol(featuresCol).setLabelCol("label").setFamily("multinomial")
            .setMaxIter(LR_MAX_ITER).setRegParam(LR_REG_PARAM);
    }

    /** The mean of an L×E matrix column's rows, as an ML vector of length E. */
    static Column meanRow(Column matrix) {
        UDF1<scala.collection.Seq<scala.collection.Seq<Number>>, Vector> mean = Baselines::meanRow;
        return udf(mean, new VectorUDT()).apply(matrix);
    }

    private static Vector meanRow(scala.collection.Seq<scala.collection.Seq<Number>> rows) {
        int n = rows.size();
        double[] sum = new double[rows.apply(0).size()];
        for (int i = 0; i < n; i++) {
            scala.collection.Seq<Number> row = rows.apply(i);
            for (int j = 0; j < sum.length; j++) {
                sum[j] += row.apply(j).doubleValue();
            }
        }
        for (int j = 0; j < sum.length; j++) {
            sum[j] /= n;
        }
        return Vectors.dense(sum);
    }
}

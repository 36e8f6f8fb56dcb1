package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import org.apache.spark.ml.attribute.NominalAttribute;
import org.apache.spark.ml.feature.IndexToString;
import org.apache.spark.ml.feature.StringIndexer;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;

import java.util.Arrays;
import java.util.regex.Pattern;

/**
 * {@code fine-tune}'s label column of strings, as MLlib's pipelines take one: MLlib's own
 * {@link StringIndexer} numbers the labels (the most frequent 0, ties in alphabetical order), the
 * training rows carry the indices with the labels as nominal metadata (so the classifier has K
 * classes), and the saved model ends with an {@link IndexToString} that adds the label itself,
 * {@value #PREDICTED_LABEL}, beside {@code prediction}. The mapping is saved with that stage.
 *
 * <p>A CSV file holds only strings: a column whose labels are all class indices written out
 * ({@code 0}, {@code 1}, {@code 12}) is read as those indices, as the same column in JSON lines
 * would be, and gets no {@value #PREDICTED_LABEL}.
 */
final class StringLabels {

    /** The column predict adds with a label's string. */
    static final String PREDICTED_LABEL = "predicted_label";
    /** A class index written out: 0, or digits without a leading zero, within an int. */
    private static final Pattern INDEX = Pattern.compile("0|[1-9][0-9]{0,8}");

    /** The labels by index. */
    final String[] labels;
    /** Whether every label is a class index written out. */
    final boolean indices;

    StringLabels(String[] labels) {
        this.labels = labels;
        this.indices = Arrays.stream(labels).allMatch(l -> INDEX.matcher(l).matches());
    }

    /**
     * The labels of {@code column}, a string column, numbered by MLlib's {@link StringIndexer}
     * (null labels are not counted).
     *
     * @throws BadInputException when the column holds no label at all
     */
    static StringLabels fit(Dataset<Row> rows, String column, String input) {
        String[] labels = new StringIndexer().setInputCol(column).setOutputCol(column + "_index")
            .setStringOrderType("frequencyDesc").fit(rows.select(column)).labelsArray()[0];
        if (labels.length == 0) {
            throw new BadInputException("--input " + input + ": column " + column + " (--label-col) holds no label, "
                + "only nulls");
        }
        return new StringLabels(labels);
    }

    /**
     * The rows with {@code column} replaced by the class index (a double; a null label stays null,
     * for the stage to name its row): by value for indices written out, else by this mapping, with
     * the labels as the column's nominal metadata.
     */
    Dataset<Row> indexed(Dataset<Row> rows, String column) {
        Column label = functions.col(column);
        if (indices) {
            return rows.withColumn(column, label.cast(DataTypes.DoubleType));
        }
        Column index = functions.lit(null).cast(DataTypes.DoubleType);
        for (int i = labels.length - 1; i >= 0; i--) {
            index = functions.when(label.equalTo(labels[i]), (double) i).otherwise(index);
        }
        return rows.withColumn(column, index.as(column,
            NominalAttribute.defaultAttr().withName(column).withValues(labels).toMetadata()));
    }

    /** The stage after the classifier that adds {@value #PREDICTED_LABEL} from {@code predictionCol}. */
    IndexToString decoder(String predictionCol) {
        return new IndexToString().setInputCol(predictionCol).setOutputCol(PREDICTED_LABEL).setLabels(labels);
    }
}

package io.sparkattention.ml.classification;

import io.sparkattention.rows.SequenceLayout;
import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.util.List;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The classifier on flat features ({@code array<float>} of L·E values, E in the column's
 * metadata): the same model and the same predictions as on the nested column, bit for bit.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FlatFeaturesClassifierTest {

    private static final int EMBED = 8;

    private final SparkSession spark = SparkTestSession.get();
    private Dataset<Row> nested;
    private Dataset<Row> flat;

    @BeforeAll
    void data() {
        nested = ClassifierData.random(spark, 40, EMBED, 3, 11, 3).withColumn("id", functions.monotonically_increasing_id())
            .cache();
        flat = nested.select(col("id"), SequenceLayout.flatten(col("features"), "features", EMBED), col("label"));
    }

    @AfterAll
    void release() {
        nested.unpersist();
    }

    private static AttentionClassifier stage() {
        return new AttentionClassifier().setNumHeads(2).setMaxIter(5).setStepSize(0.01).setMiniBatchFraction(0.7)
            .setSeed(7);
    }

    @Test
    @DisplayName("fit on flat features gives the nested fit's weights and objective history, bit for bit")
    void fitMatchesNested() {
        AttentionClassificationModel fromNested = stage().fit(nested);
        AttentionClassificationModel fromFlat = stage().fit(flat);
        assertBitsEqual(fromNested.parameters(), fromFlat.parameters());
        double[] a = fromNested.summary().objectiveHistory(), b = fromFlat.summary().objectiveHistory();
        assertEquals(a.length, b.length);
        for (int i = 0; i < a.length; i++) {
            assertEquals(Double.doubleToRawLongBits(a[i]), Double.doubleToRawLongBits(b[i]), "loss " + i);
        }
    }

    @Test
    @DisplayName("transform of flat features gives the nested rows' raw predictions, probabilities and predictions, "
        + "bit for bit; without width metadata the model's E gives the width")
    void transformMatchesNested() {
        AttentionClassificationModel model = stage().fit(nested);
        List<Row> expected = predictions(model, nested);
        assertRowsBitEqual(expected, predictions(model, flat));
        Dataset<Row> bare = flat.withColumn("features", col("features").as("features", org.apache.spark.sql.types
            .Metadata.empty()));
        assertEquals(-1, SequenceLayout.width(bare.schema().apply("features")), "no width metadata");
        assertRowsBitEqual(expected, predictions(model, bare));
    }

    @Test
    @DisplayName("a flat column whose width disagrees with the model's E, or a flat column to fit without a width, "
        + "is refused naming the column")
    void widthErrors() {
        AttentionClassificationModel model = stage().setMaxIter(1).fit(nested);
        Dataset<Row> wide = nested.select(SequenceLayout.flatten(col("features"), "features", 2 * EMBED));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> model.transform(wide));
        assertEquals("column features (featuresCol) is a flat array<float> whose metadata gives 16 values per "
            + "position, but the layer's weights take 8", e.getMessage());
        Dataset<Row> bare = flat.withColumn("features", col("features").as("features", org.apache.spark.sql.types
            .Metadata.empty()));
        e = assertThrows(IllegalArgumentException.class, () -> stage().fit(bare));
        assertTrue(e.getMessage().startsWith("column features (featuresCol) is a flat array<float> without a width: "
            + "give the column metadata sequence_width"), e.getMessage());
    }

    private static List<Row> predictions(AttentionClassificationModel model, Dataset<Row> rows) {
        return model.transform(rows).orderBy("id").select("rawPrediction", "probability", "prediction")
            .collectAsList();
    }

    private static void assertRowsBitEqual(List<Row> expected, List<Row> got) {
        assertEquals(expected.size(), got.size());
        for (int r = 0; r < expected.size(); r++) {
            for (int c = 0; c < 2; c++) {
                double[] a = ((Vector) expected.get(r).get(c)).toArray(), b = ((Vector) got.get(r).get(c)).toArray();
                assertEquals(a.length, b.length);
                for (int i = 0; i < a.length; i++) {
                    assertEquals(Double.doubleToRawLongBits(a[i]), Double.doubleToRawLongBits(b[i]),
                        "row " + r + ", column " + c + ", value " + i);
                }
            }
            assertEquals(expected.get(r).getDouble(2), got.get(r).getDouble(2), "prediction of row " + r);
        }
    }

    private static void assertBitsEqual(float[] expected, float[] got) {
        assertEquals(expected.length, got.length);
        for (int i = 0; i < expected.length; i++) {
            assertEquals(Float.floatToRawIntBits(expected[i]), Float.floatToRawIntBits(got[i]), "parameter " + i);
        }
    }
}

package io.sparkattention.ml.classification;

import io.sparkattention.io.SafeTensorsWriter;
import io.sparkattention.io.Tensor;
import io.sparkattention.testing.Matrices;
import io.sparkattention.testing.RootCause;
import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.ml.attribute.NominalAttribute;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bad input fails {@code fit} before any step, with a message naming the column, the row (its
 * position in the input, from 1) or the tensor.
 */
class AttentionClassifierValidationTest {

    private static final int E = 4;
    private final SparkSession spark = SparkTestSession.get();

    @TempDir
    Path dir;

    /** Five 3×4 rows, labels 0, 1, 0, 1, 0, weight 1; {@code bad} replaces row {@code at}'s label/weight/value. */
    private Dataset<Row> frame(int at, double label, double weight, float value) {
        List<Row> rows = new ArrayList<>();
        for (int b = 0; b < 5; b++) {
            float[] x = new float[3 * E];
            for (int i = 0; i < x.length; i++) {
                x[i] = (b + 1) * 0.1f * (i % 5 - 2);
            }
            double y = b % 2;
            double w = 1;
            if (b == at) {
                y = label;
                w = weight;
                x[E + 2] = value;
            }
            rows.add(RowFactory.create(Matrices.floats(x, 3, E), y, w));
        }
        StructType schema = new StructType().add("features", ClassifierData.MATRIX).add("label", DataTypes.DoubleType)
            .add("weight", DataTypes.DoubleType);
        return spark.createDataFrame(rows, schema).coalesce(1);
    }

    private Dataset<Row> good() {
        return frame(-1, 0, 1, 0);
    }

    private static AttentionClassifier stage() {
        return new AttentionClassifier().setNumHeads(2).setMaxIter(1).setWeightCol("weight");
    }

    private static void assertMessage(Executable fit, String... parts) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, fit);
        for (String part : parts) {
            assertTrue(e.getMessage().contains(part), "'" + e.getMessage() + "' should contain '" + part + "'");
        }
    }

    @Test
    @DisplayName("a label that is not an integer >= 0 names the label column and the row")
    void fractionalOrNegativeLabel() {
        assertMessage(() -> stage().fit(frame(3, 1.5, 1, 0)), "row 4", "column label", "1.5");
        assertMessage(() -> stage().fit(frame(2, -1, 1, 0)), "row 3", "column label", "-1.0");
    }

    @Test
    @DisplayName("a label outside the classes the label metadata declares names the row and the metadata")
    void labelBeyondDeclaredClasses() {
        Dataset<Row> df = frame(4, 2, 1, 0);
        Dataset<Row> declared = df.withColumn("label", col("label").as("label",
            NominalAttribute.defaultAttr().withNumValues(2).toMetadata()));
        assertMessage(() -> stage().fit(declared), "row 5", "column label", "outside [0, 2)",
            "the 2 classes of the label column's metadata");
    }

    @Test
    @DisplayName("a stray large or negative label fails fast naming the row and the class limit, before anything "
        + "is sized by it")
    void strayLabels() {
        for (double label : new double[] {1e8, 2e7, 1e9}) {
            assertMessage(() -> stage().fit(frame(3, label, 1, 0)), "row 4: column label is " + label,
                "outside [0, " + ClassCount.MAX_INFERRED_CLASSES + ")", "set numClasses");
        }
        assertMessage(() -> stage().fit(frame(0, -1, 1, 0)), "row 1: column label is -1.0, not a class index");
        assertMessage(() -> stage().fit(frame(1, Double.NaN, 1, 0)), "row 2: column label is NaN, not a class index");
        assertMessage(() -> stage().setNumClasses(3).fit(frame(1, 3, 1, 0)),
            "row 2: column label is 3.0, outside [0, 3): the 3 classes of numClasses");
    }

    @Test
    @DisplayName("numClasses sets K beyond the inferred limit and beyond the labels present; it must agree with "
        + "the label metadata")
    void explicitNumClasses() {
        assertEquals(5, stage().setNumClasses(5).fit(good()).numClasses());
        assertEquals(ClassCount.MAX_INFERRED_CLASSES,
            stage().fit(frame(2, ClassCount.MAX_INFERRED_CLASSES - 1, 1, 0)).numClasses());
        assertEquals(1001, stage().setNumClasses(1001).fit(frame(2, 1000, 1, 0)).numClasses());
        Dataset<Row> declared = good().withColumn("label", col("label").as("label",
            NominalAttribute.defaultAttr().withNumValues(2).toMetadata()));
        assertMessage(() -> stage().setNumClasses(3).fit(declared), "numClasses is 3",
            "the label column's metadata declares 2 classes");
    }

    @Test
    @DisplayName("a NaN weight or a negative weight names the weight column and the row")
    void badWeight() {
        assertMessage(() -> stage().fit(frame(1, 0, Double.NaN, 0)), "row 2", "column weight", "NaN");
        assertMessage(() -> stage().fit(frame(2, 0, -0.5, 0)), "row 3", "column weight", "-0.5");
    }

    @Test
    @DisplayName("a NaN or infinite feature names the features column, the row and the token")
    void nanFeature() {
        assertMessage(() -> stage().fit(frame(2, 0, 1, Float.NaN)), "row 3", "column features", "NaN", "at row 1");
        assertMessage(() -> stage().fit(frame(0, 0, 1, Float.POSITIVE_INFINITY)), "row 1: ", "Infinity");
    }

    @Test
    @DisplayName("numHeads that does not divide E names numHeads, E and the features column")
    void headsNotDividingWidth() {
        assertMessage(() -> stage().setNumHeads(3).fit(good()), "numHeads (3)", "E (4)", "column features");
    }

    @Test
    @DisplayName("an empty training set, or one whose weights sum to 0, is refused")
    void emptyTrainingSet() {
        assertMessage(() -> stage().fit(good().limit(0)), "training set is empty");
        assertMessage(() -> stage().fit(good().withColumn("weight", col("weight").multiply(0))), "weight", "sum to 0");
    }

    @Test
    @DisplayName("rows of different widths, and a key length beyond the row, name the column and row")
    void raggedWidthAndKeyLength() {
        List<Row> rows = List.of(RowFactory.create(Matrices.floats(new float[8], 2, 4), 0.0, 2),
            RowFactory.create(Matrices.floats(new float[6], 2, 3), 1.0, 2),
            RowFactory.create(Matrices.floats(new float[8], 2, 4), 1.0, 3));
        StructType schema = new StructType().add("features", ClassifierData.MATRIX).add("label", DataTypes.DoubleType)
            .add("len", DataTypes.IntegerType);
        Dataset<Row> df = spark.createDataFrame(rows, schema).coalesce(1);
        assertMessage(() -> new AttentionClassifier().fit(df), "row 2", "column features", "3 values per token",
            "expected 4");
        Dataset<Row> longKeys = df.filter(col("label").equalTo(1.0).and(col("len").equalTo(3)))
            .union(df.limit(1));
        assertMessage(() -> new AttentionClassifier().setKeyLengthCol("len").fit(longKeys), "row 1", "column len",
            "3", "outside [1, 2]");
    }

    @Test
    @DisplayName("a features column of the wrong type, and a missing column, are refused by the schema check")
    void schemaErrors() {
        Dataset<Row> df = good();
        assertMessage(() -> stage().setFeaturesCol("label").fit(df), "column label (featuresCol)", "expected");
        assertMessage(() -> stage().setFeaturesCol("tokens").fit(df), "column tokens (featuresCol) does not exist");
        assertMessage(() -> stage().setKeyLengthCol("weight").fit(df), "column weight (keyLengthCol)", "integer");
    }

    @Test
    @DisplayName("transform rejects a NaN feature and a key length beyond the row, naming the row and column")
    void transformErrors() {
        AttentionClassificationModel model = stage().setMaxIter(0).fit(good());
        Exception nan = assertThrows(Exception.class, () -> model.transform(frame(2, 0, 1, Float.NaN)).collect());
        String nanMessage = RootCause.message(nan);
        assertTrue(nanMessage.matches("row \\d+: column features has NaN at row 1, position 2"), nanMessage);
        Dataset<Row> keys = good().withColumn("len", functions.lit(4));
        Exception longKeys = assertThrows(Exception.class,
            () -> model.setKeyLengthCol("len").transform(keys).collect());
        String longMessage = RootCause.message(longKeys);
        assertTrue(longMessage.contains("column len is 4, outside [1, 3]"), longMessage);
    }

    @Test
    @DisplayName("initialWeightsPath: a missing tensor, an ill-shaped tensor or a missing file is named")
    void badInitialWeights() throws IOException {
        Map<String, Tensor> tensors = new LinkedHashMap<>();
        tensors.put("attention.in_proj_weight", Tensor.f32(new float[3 * E * E], 3 * E, E));
        tensors.put("attention.in_proj_bias", Tensor.f32(new float[3 * E], 3 * E));
        tensors.put("attention.out_proj.weight", Tensor.f32(new float[E * E], E, E));
        tensors.put("classifier.weight", Tensor.f32(new float[2 * E], 2, E));
        tensors.put("classifier.bias", Tensor.f32(new float[2], 2));
        Path missing = dir.resolve("missing.safetensors");
        SafeTensorsWriter.write(missing, tensors, null);
        assertMessage(() -> stage().setInitialWeightsPath(missing.toString()).fit(good()),
            "attention.out_proj.bias", "missing");

        tensors.put("attention.out_proj.bias", Tensor.f32(new float[E + 1], E + 1));
        Path misshaped = dir.resolve("misshaped.safetensors");
        SafeTensorsWriter.write(misshaped, tensors, null);
        assertMessage(() -> stage().setInitialWeightsPath(misshaped.toString()).fit(good()),
            "attention.out_proj.bias", "[5]", "expected [4]");

        tensors.put("classifier.weight", Tensor.f32(new float[2 * 6], 2, 6));
        Path wide = dir.resolve("wide.safetensors");
        SafeTensorsWriter.write(wide, tensors, null);
        assertMessage(() -> stage().setInitialWeightsPath(wide.toString()).fit(good()),
            "classifier.weight", "embed_dim 6", "E = 4");

        String absent = dir.resolve("absent.safetensors").toString();
        assertMessage(() -> stage().setInitialWeightsPath(absent).fit(good()), "initialWeightsPath", "absent.safetensors");
    }
}

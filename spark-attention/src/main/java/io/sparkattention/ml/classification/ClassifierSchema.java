package io.sparkattention.ml.classification;

import io.sparkattention.ml.StageSchema;
import io.sparkattention.rows.MatrixType;
import io.sparkattention.rows.SequenceColumns;
import io.sparkattention.rows.SequenceDecoder;

import io.sparkattention.sparkinternal.MLSchemas;
import org.apache.spark.ml.classification.ProbabilisticClassifierParams;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.IntegralType;
import org.apache.spark.sql.types.NumericType;
import org.apache.spark.sql.types.StructType;

import java.util.Arrays;

/**
 * The schema checks {@link AttentionClassifier} and {@link AttentionClassificationModel} share:
 * the features column holds L×E matrices of any accepted {@link MatrixType}, or flat
 * {@code array<float|double>} of L·E values with E in its metadata (MLlib's check expects one
 * fixed type, so the column's own type is handed to it), the weight column is numeric
 * and the key length column integral. MLlib's {@code validateAndTransformSchema} then checks the
 * label (when fitting) and appends prediction, rawPrediction and probability.
 */
final class ClassifierSchema {

    /** The key length column's conventional name, which the command line uses when the input has it. */
    static final String KEY_LENGTH = "key_length";

    private ClassifierSchema() {
    }

    /**
     * The output schema.
     *
     * @throws IllegalArgumentException naming the column and param whose type is wrong or that is missing
     */
    static <T extends ProbabilisticClassifierParams & AttentionClassifierParams<?>> StructType validate(
        T stage, StructType schema, boolean fitting, int embedDim) {
        features(schema, stage.getFeaturesCol(), embedDim);
        if (fitting && !stage.getWeightCol().isEmpty()) {
            DataType t = StageSchema.field(schema, stage.getWeightCol(), "weightCol").dataType();
            if (!(t instanceof NumericType)) {
                throw new IllegalArgumentException("column " + stage.getWeightCol() + " (weightCol): expected a "
                    + "numeric type, found " + t.simpleString());
            }
        }
        if (!stage.getKeyLengthCol().isEmpty()) {
            DataType t = StageSchema.field(schema, stage.getKeyLengthCol(), "keyLengthCol").dataType();
            if (!(t instanceof IntegralType)) {
                throw new IllegalArgumentException("column " + stage.getKeyLengthCol() + " (keyLengthCol): expected "
                    + "an integer type, found " + t.simpleString());
            }
        }
        if (fitting) {
            StageSchema.field(schema, stage.getLabelCol(), "labelCol");
        }
        DataType featuresType = schema.apply(stage.getFeaturesCol()).dataType();
        return stage.validateAndTransformSchema(schema, fitting, featuresType);
    }

    /**
     * How the features column is decoded: nested, or flat with its width from the column's
     * metadata or, for a model, its embedding width (the two must agree).
     *
     * @param embedDim the model's E, or below 1 when fitting
     */
    static SequenceDecoder features(StructType schema, String featuresCol, int embedDim) {
        return SequenceColumns.decoder(StageSchema.field(schema, featuresCol, "featuresCol"), "featuresCol", embedDim,
            SequenceColumns.NO_WIDTH_PARAM);
    }

    /**
     * The line {@code fit} and {@code transform} log about the key length column: which column
     * bounds each row's valid tokens, or that every token is valid — also when the input has a
     * {@code key_length} column, which only the command line picks up by itself.
     */
    static String keyLengthNote(AttentionClassifierParams<?> stage, StructType schema) {
        String features = ((ProbabilisticClassifierParams) stage).getFeaturesCol();
        if (!stage.getKeyLengthCol().isEmpty()) {
            return "valid tokens per row of column " + features + " from column " + stage.getKeyLengthCol()
                + " (keyLengthCol)";
        }
        String note = "keyLengthCol is empty: every token of column " + features + " is valid";
        return Arrays.asList(schema.fieldNames()).contains(KEY_LENGTH)
            ? note + "; the input's " + KEY_LENGTH + " column is not used (setKeyLengthCol(\"" + KEY_LENGTH
                + "\") uses it)"
            : note;
    }

    /** Adds the class count to the output columns' metadata, as MLlib's classification models do. */
    static StructType withNumClasses(StructType schema, ProbabilisticClassifierParams stage, int numClasses) {
        StructType out = schema;
        if (!stage.getPredictionCol().isEmpty()) {
            out = MLSchemas.withNumValues(out, stage.getPredictionCol(), numClasses);
        }
        if (!stage.getRawPredictionCol().isEmpty()) {
            out = MLSchemas.withVectorSize(out, stage.getRawPredictionCol(), numClasses);
        }
        if (!stage.getProbabilityCol().isEmpty()) {
            out = MLSchemas.withVectorSize(out, stage.getProbabilityCol(), numClasses);
        }
        return out;
    }
}

package io.sparkattention.ml.lm;

import io.sparkattention.ml.feature.HuggingFaceTokenizer;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.IntegralType;
import org.apache.spark.sql.types.StructType;

import java.util.Arrays;

/**
 * A {@link GptLanguageModeler} input's token ids: an ids column as it is, or a text column
 * tokenized with the model's tokenizer (never truncated, a null text kept as null ids so that the
 * reader names its row), in the input's row order.
 *
 * @param rows    the rows, holding {@code column}
 * @param column  the ids' column ({@code array<int>} or {@code array<bigint>})
 * @param shownAs the column errors name: the ids' own, or the text column they come from
 */
record LanguageModelInput(Dataset<Row> rows, String column, String shownAs) {

    /** The column holding a text column's tokens. */
    static final String TOKENS = "__lm_token_ids";

    /**
     * The ids of {@code dataset}.
     *
     * @param idsCol    the ids column, or empty for {@code textCol}
     * @param tokenizer the model's tokenizer.json, or null
     * @param which     the input's name in errors ("the training set", "the validation set")
     * @throws IllegalArgumentException naming the column that is missing or of the wrong type, or
     *                                  a text column without a tokenizer
     */
    static LanguageModelInput of(Dataset<?> dataset, String textCol, String idsCol, byte[] tokenizer, String which) {
        StructType schema = dataset.schema();
        boolean ids = !idsCol.isEmpty();
        String column = ids ? idsCol : textCol;
        String param = ids ? "idsCol" : "textCol";
        if (!Arrays.asList(schema.fieldNames()).contains(column)) {
            throw new IllegalArgumentException(which + " has no column " + column + " (" + param + "); its columns: "
                + String.join(", ", schema.fieldNames()));
        }
        DataType type = schema.apply(column).dataType();
        if (ids) {
            if (!(type instanceof ArrayType a) || !(a.elementType() instanceof IntegralType)) {
                throw new IllegalArgumentException("column " + column + " (idsCol) of " + which + " holds "
                    + type.simpleString() + ", not arrays of token ids");
            }
            Dataset<Row> rows = dataset.select(column);
            DataType element = ((ArrayType) type).elementType();
            if (!element.equals(DataTypes.IntegerType) && !element.equals(DataTypes.LongType)) {
                rows = rows.withColumn(column, rows.col(column).cast(DataTypes.createArrayType(DataTypes.LongType)));
            }
            return new LanguageModelInput(rows, column, column);
        }
        if (!type.equals(DataTypes.StringType)) {
            throw new IllegalArgumentException("column " + column + " (textCol) of " + which + " holds "
                + type.simpleString() + ", not strings");
        }
        if (tokenizer == null) {
            throw new IllegalArgumentException("textCol " + column + ": the model in initialWeightsPath has no tokenizer.json "
                + "to tokenize it with; give token ids (idsCol)");
        }
        Dataset<Row> rows = HuggingFaceTokenizer.fromBytes(tokenizer).setInputCol(column).setOutputCol(TOKENS)
            .setMaxLength(HuggingFaceTokenizer.NO_TRUNCATION).setHandleInvalid("keep").transform(dataset.select(column));
        return new LanguageModelInput(rows, TOKENS, column);
    }
}

package io.sparkattention.examples.demo;

import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.Params;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

import java.util.Arrays;

/** The columns shared by {@link TokenEmbedding} and {@link TokenEmbeddingModel}, and their one schema check. */
interface TokenEmbeddingParams extends Params {

    /** Input column: array&lt;string&gt; tokens. */
    Param<String> inputCol();

    /** Output column: array&lt;array&lt;float&gt;&gt;, one vector per token (L×vectorSize). */
    Param<String> outputCol();

    default String getInputCol() {
        return getOrDefault(inputCol());
    }

    default String getOutputCol() {
        return getOrDefault(outputCol());
    }

    /** Checks the input is array&lt;string&gt; and the output is new; returns the output schema. */
    default StructType validateAndTransformSchema(StructType schema) {
        String in = getInputCol();
        if (!Arrays.asList(schema.fieldNames()).contains(in)) {
            throw new IllegalArgumentException("column " + in + " (inputCol) does not exist; the input has "
                + String.join(", ", schema.fieldNames()));
        }
        DataType t = schema.apply(in).dataType();
        if (!(t instanceof ArrayType) || !((ArrayType) t).elementType().equals(DataTypes.StringType)) {
            throw new IllegalArgumentException("column " + in + " (inputCol): expected array<string>, found "
                + t.simpleString());
        }
        if (Arrays.asList(schema.fieldNames()).contains(getOutputCol())) {
            throw new IllegalArgumentException("output column " + getOutputCol() + " already exists in the input");
        }
        return schema.add(getOutputCol(), TokenEmbeddingModel.OUTPUT_TYPE, true);
    }
}

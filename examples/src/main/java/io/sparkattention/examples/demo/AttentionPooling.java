package io.sparkattention.examples.demo;

import io.sparkattention.exec.RowFunction;
import io.sparkattention.exec.RowFunctions;
import org.apache.spark.ml.Transformer;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.DefaultParamsReader;
import org.apache.spark.ml.util.DefaultParamsWritable;
import org.apache.spark.ml.util.Identifiable$;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

import java.util.Arrays;
import java.util.List;

/**
 * One vector per sequence from its contextual token vectors, weighted by the attention each token
 * receives: {@code pooled = Σⱼ rⱼ·hⱼ} with {@code rⱼ = (1/L)·Σᵢ wᵢⱼ}, the column means of the
 * (head-averaged) self-attention weights. Tokens the passage attends to most dominate its vector,
 * so no extra parameters are needed. Inputs: an L×E matrix column and an L×L weights column
 * (array&lt;array&lt;float&gt;&gt;); output: array&lt;float&gt; of length E (null for an empty sequence).
 */
public final class AttentionPooling extends Transformer implements DefaultParamsWritable {

    private static final long serialVersionUID = 1L;

    private static final DataType FLOAT_MATRIX =
        DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.FloatType, false), false);
    private static final DataType OUTPUT = DataTypes.createArrayType(DataTypes.FloatType, false);

    private final String uid;
    private Param<String> inputCol;
    private Param<String> weightsCol;
    private Param<String> outputCol;

    public AttentionPooling() {
        this(Identifiable$.MODULE$.randomUID("attentionPooling"));
    }

    public AttentionPooling(String uid) {
        this.uid = uid;
        inputCol = new Param<>(this, "inputCol", "contextual token vectors, L×E array<array<float>>");
        weightsCol = new Param<>(this, "weightsCol", "head-averaged self-attention weights, L×L array<array<float>>");
        outputCol = new Param<>(this, "outputCol", "pooled vector, array<float> of length E");
        setDefault(inputCol, "contextual");
        setDefault(weightsCol, "attn_weights");
        setDefault(outputCol, "pooled");
    }

    @Override
    public String uid() {
        return uid;
    }

    public Param<String> inputCol() {
        return inputCol;
    }

    public Param<String> weightsCol() {
        return weightsCol;
    }

    public Param<String> outputCol() {
        return outputCol;
    }

    public AttentionPooling setInputCol(String value) {
        set(inputCol, value);
        return this;
    }

    public AttentionPooling setWeightsCol(String value) {
        set(weightsCol, value);
        return this;
    }

    public AttentionPooling setOutputCol(String value) {
        set(outputCol, value);
        return this;
    }

    @Override
    public StructType transformSchema(StructType schema) {
        for (Param<String> p : List.of(inputCol, weightsCol)) {
            String column = getOrDefault(p);
            if (!Arrays.asList(schema.fieldNames()).contains(column)) {
                throw new IllegalArgumentException("column " + column + " (" + p.name() + ") does not exist");
            }
            DataType t = schema.apply(column).dataType();
            if (!(t instanceof ArrayType) || !(((ArrayType) t).elementType() instanceof ArrayType)) {
                throw new IllegalArgumentException("column " + column + " (" + p.name()
                    + "): expected array<array<float>>, found " + t.simpleString());
            }
        }
        if (Arrays.asList(schema.fieldNames()).contains(getOrDefault(outputCol))) {
            throw new IllegalArgumentException("output column " + getOrDefault(outputCol) + " already exists");
        }
        return schema.add(getOrDefault(outputCol), OUTPUT, true);
    }

    @Override
    public Dataset<Row> transform(Dataset<?> dataset) {
        transformSchema(dataset.schema(), true);
        return dataset.toDF().withColumn(getOrDefault(outputCol), RowFunctions.column("attention_pooling",
            new Pool(), OUTPUT, null,
            List.of(functions.col(getOrDefault(inputCol)), functions.col(getOrDefault(weightsCol)))));
    }

    /** Per row: column means of the weights, then the weighted sum of the token vectors. */
    private static final class Pool implements RowFunction {
        private static final long serialVersionUID = 1L;

        @Override
        public Object apply(Object[] inputs) {
            ArrayData tokens = (ArrayData) inputs[0];
            ArrayData weights = (ArrayData) inputs[1];
            if (tokens == null || weights == null || tokens.numElements() == 0) {
                return null;
            }
            int L = tokens.numElements();
            float[] received = new float[L];
            for (int i = 0; i < weights.numElements(); i++) {
                float[] row = weights.getArray(i).toFloatArray();
                for (int j = 0; j < Math.min(L, row.length); j++) {
                    received[j] += row[j] / weights.numElements();
                }
            }
            float[] pooled = null;
            for (int j = 0; j < L; j++) {
                float[] h = tokens.getArray(j).toFloatArray();
                if (pooled == null) {
                    pooled = new float[h.length];
                }
                for (int t = 0; t < h.length; t++) {
                    pooled[t] += received[j] * h[t];
                }
            }
            return UnsafeArrayData.fromPrimitiveArray(pooled);
        }
    }

    @Override
    public AttentionPooling copy(ParamMap extra) {
        return defaultCopy(extra);
    }

    public static MLReader<AttentionPooling> read() {
        return new DefaultParamsReader<>();
    }

    public static AttentionPooling load(String path) {
        return read().load(path);
    }
}

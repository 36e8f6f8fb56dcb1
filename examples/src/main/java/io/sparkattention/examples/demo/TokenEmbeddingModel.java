package io.sparkattention.examples.demo;

import io.sparkattention.exec.RowFunction;
import io.sparkattention.exec.RowFunctions;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.ml.Model;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.DefaultParamsReader;
import org.apache.spark.ml.util.DefaultParamsReader$;
import org.apache.spark.ml.util.DefaultParamsWriter$;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.ml.util.MLWritable;
import org.apache.spark.ml.util.MLWriter;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import scala.Option;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Looks every token of a row up in a word-vector table: array&lt;string&gt; → L×d
 * array&lt;array&lt;float&gt;&gt;. Tokens missing from the table get the zero vector (they then score
 * 0 against every key and receive no more attention than the softmax's baseline). The table
 * reaches each executor once, by broadcast, and is saved as Parquet under {@code path/data}.
 */
public final class TokenEmbeddingModel extends Model<TokenEmbeddingModel> implements TokenEmbeddingParams, MLWritable {

    private static final long serialVersionUID = 1L;

    /** The output column's type. */
    static final DataType OUTPUT_TYPE =
        DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.FloatType, false), false);

    /** Words per task when the table is saved: about 1 MB of vectors of 64 floats each. */
    private static final int ROWS_PER_TASK = 4096;

    private static final StructType DATA_SCHEMA = new StructType()
        .add("word", DataTypes.StringType, false)
        .add("vector", DataTypes.createArrayType(DataTypes.FloatType, false), false);

    private final String uid;
    private final Map<String, float[]> vectors;
    private final int dimension;
    private Param<String> inputCol;
    private Param<String> outputCol;

    TokenEmbeddingModel(String uid, Map<String, float[]> vectors) {
        this.uid = uid;
        this.vectors = vectors;
        this.dimension = vectors.isEmpty() ? 0 : vectors.values().iterator().next().length;
        inputCol = new Param<>(this, "inputCol", "tokens column, array<string>");
        outputCol = new Param<>(this, "outputCol", "embeddings column, array<array<float>> (L×vectorSize)");
        setDefault(inputCol, "tokens");
        setDefault(outputCol, "embeddings");
    }

    /**
     * Word2Vec's {@code getVectors} (word, vector) as a table; with {@code normalize}, every vector
     * scaled to norm √d (zero vectors stay zero).
     */
    static Map<String, float[]> vectorsOf(Dataset<Row> wordVectors, boolean normalize) {
        Map<String, float[]> table = new HashMap<>();
        for (Row row : wordVectors.collectAsList()) {
            double[] v = ((Vector) row.get(1)).toArray();
            double norm = 0;
            for (double x : v) {
                norm += x * x;
            }
            double factor = normalize && norm > 0 ? Math.sqrt(v.length / norm) : 1.0;
            float[] f = new float[v.length];
            for (int i = 0; i < v.length; i++) {
                f[i] = (float) (v[i] * factor);
            }
            table.put(row.getString(0), f);
        }
        return table;
    }

    @Override
    public String uid() {
        return uid;
    }

    @Override
    public Param<String> inputCol() {
        return inputCol;
    }

    @Override
    public Param<String> outputCol() {
        return outputCol;
    }

    public TokenEmbeddingModel setInputCol(String value) {
        set(inputCol, value);
        return this;
    }

    public TokenEmbeddingModel setOutputCol(String value) {
        set(outputCol, value);
        return this;
    }

    /** Embedding dimension. */
    public int dimension() {
        return dimension;
    }

    /** Words in the table. */
    public int vocabularySize() {
        return vectors.size();
    }

    @Override
    public StructType transformSchema(StructType schema) {
        return validateAndTransformSchema(schema);
    }

    @Override
    public Dataset<Row> transform(Dataset<?> dataset) {
        transformSchema(dataset.schema(), true);
        Broadcast<Map<String, float[]>> table =
            JavaSparkContext.fromSparkContext(dataset.sparkSession().sparkContext()).broadcast(vectors);
        return dataset.toDF().withColumn(getOutputCol(), RowFunctions.column("token_embedding",
            new Lookup(table, dimension), OUTPUT_TYPE, null, List.of(functions.col(getInputCol()))));
    }

    /** Per row: tokens → one vector each. */
    private static final class Lookup implements RowFunction {
        private static final long serialVersionUID = 1L;
        private final Broadcast<Map<String, float[]>> table;
        private final int dimension;

        Lookup(Broadcast<Map<String, float[]>> table, int dimension) {
            this.table = table;
            this.dimension = dimension;
        }

        @Override
        public Object apply(Object[] inputs) {
            ArrayData tokens = (ArrayData) inputs[0];
            if (tokens == null) {
                return null;
            }
            Map<String, float[]> words = table.value();
            float[] zero = new float[dimension];
            Object[] rows = new Object[tokens.numElements()];
            for (int i = 0; i < rows.length; i++) {
                float[] v = tokens.isNullAt(i) ? null : words.get(tokens.getUTF8String(i).toString());
                rows[i] = UnsafeArrayData.fromPrimitiveArray(v == null ? zero : v);
            }
            return new GenericArrayData(rows);
        }
    }

    @Override
    public TokenEmbeddingModel copy(ParamMap extra) {
        TokenEmbeddingModel copy = new TokenEmbeddingModel(uid, vectors);
        return copyValues(copy, extra).setParent(parent());
    }

    @Override
    public MLWriter write() {
        return new Writer(this);
    }

    public static MLReader<TokenEmbeddingModel> read() {
        return new Reader();
    }

    public static TokenEmbeddingModel load(String path) {
        return read().load(path);
    }

    /** Params as MLlib metadata, the table as Parquet rows (word, vector) under {@code path/data}. */
    private static final class Writer extends MLWriter {
        private final TokenEmbeddingModel model;

        Writer(TokenEmbeddingModel model) {
            this.model = model;
        }

        @Override
        public void saveImpl(String path) {
            DefaultParamsWriter$.MODULE$.saveMetadata(model, path, sparkSession());
            List<Row> rows = new ArrayList<>(model.vectors.size());
            model.vectors.forEach((word, vector) -> rows.add(RowFactory.create(word, vector)));
            // Slices of ROWS_PER_TASK words keep each task's serialized data small.
            int slices = Math.max(1, (rows.size() + ROWS_PER_TASK - 1) / ROWS_PER_TASK);
            JavaSparkContext jsc = JavaSparkContext.fromSparkContext(sparkSession().sparkContext());
            sparkSession().createDataFrame(jsc.parallelize(rows, slices), DATA_SCHEMA).write().parquet(path + "/data");
        }
    }

    private static final class Reader extends MLReader<TokenEmbeddingModel> {
        @Override
        public TokenEmbeddingModel load(String path) {
            DefaultParamsReader.Metadata metadata = DefaultParamsReader$.MODULE$.loadMetadata(path, sparkSession(),
                TokenEmbeddingModel.class.getName());
            Map<String, float[]> table = new HashMap<>();
            for (Row row : sparkSession().read().parquet(path + "/data").collectAsList()) {
                List<Float> v = row.getList(1);
                float[] f = new float[v.size()];
                for (int i = 0; i < f.length; i++) {
                    f[i] = v.get(i);
                }
                table.put(row.getString(0), f);
            }
            TokenEmbeddingModel model = new TokenEmbeddingModel(metadata.uid(), table);
            metadata.getAndSetParams(model, Option.empty());
            return model;
        }
    }
}

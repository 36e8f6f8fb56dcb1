package io.sparkattention.examples.demo;

import org.apache.spark.ml.Estimator;
import org.apache.spark.ml.feature.Word2Vec;
import org.apache.spark.ml.feature.Word2VecModel;
import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.LongParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.param.ParamValidators;
import org.apache.spark.ml.util.DefaultParamsReader;
import org.apache.spark.ml.util.DefaultParamsWritable;
import org.apache.spark.ml.util.Identifiable$;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.StructType;

/**
 * Token embeddings for attention: fits MLlib's {@link Word2Vec} on a tokens column and returns a
 * {@link TokenEmbeddingModel} that looks every token up, giving one L×vectorSize matrix per row
 * (MLlib's own {@code Word2VecModel.transform} averages the tokens into one vector, which is
 * exactly the sequence structure attention needs to keep).
 */
public final class TokenEmbedding extends Estimator<TokenEmbeddingModel>
    implements TokenEmbeddingParams, DefaultParamsWritable {

    private static final long serialVersionUID = 1L;

    private final String uid;
    private Param<String> inputCol;
    private Param<String> outputCol;
    private IntParam vectorSize;
    private IntParam minCount;
    private IntParam windowSize;
    private IntParam maxIter;
    private IntParam numPartitions;
    private LongParam seed;
    private BooleanParam normalize;

    public TokenEmbedding() {
        this(Identifiable$.MODULE$.randomUID("tokenEmbedding"));
    }

    public TokenEmbedding(String uid) {
        this.uid = uid;
        init();
    }

    private void init() {
        inputCol = new Param<>(this, "inputCol", "tokens column, array<string>");
        outputCol = new Param<>(this, "outputCol", "embeddings column, array<array<float>> (L×vectorSize)");
        vectorSize = new IntParam(this, "vectorSize", "embedding dimension", ParamValidators.gt(0));
        minCount = new IntParam(this, "minCount", "tokens seen fewer times get the zero vector", ParamValidators.gt(0));
        windowSize = new IntParam(this, "windowSize", "Word2Vec context window", ParamValidators.gt(0));
        maxIter = new IntParam(this, "maxIter", "Word2Vec passes over the corpus", ParamValidators.gt(0));
        numPartitions = new IntParam(this, "numPartitions", "Word2Vec training partitions", ParamValidators.gt(0));
        seed = new LongParam(this, "seed", "random seed");
        normalize = new BooleanParam(this, "normalize", "scale every vector to Euclidean norm sqrt(vectorSize), "
            + "the norm of a sinusoidal positional encoding of that size times sqrt(2), so that meaning and "
            + "position weigh alike once added");
        setDefault(inputCol, "tokens");
        setDefault(outputCol, "embeddings");
        setDefault(vectorSize, 64);
        setDefault(minCount, 1);
        setDefault(windowSize, 5);
        setDefault(maxIter, 1);
        setDefault(numPartitions, 1);
        setDefault(seed, 42L);
        setDefault(normalize, false);
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

    public IntParam vectorSize() {
        return vectorSize;
    }

    public IntParam minCount() {
        return minCount;
    }

    public IntParam windowSize() {
        return windowSize;
    }

    public IntParam maxIter() {
        return maxIter;
    }

    public IntParam numPartitions() {
        return numPartitions;
    }

    public LongParam seed() {
        return seed;
    }

    public BooleanParam normalize() {
        return normalize;
    }

    public TokenEmbedding setNormalize(boolean value) {
        set(normalize, value);
        return this;
    }

    public TokenEmbedding setInputCol(String value) {
        set(inputCol, value);
        return this;
    }

    public TokenEmbedding setOutputCol(String value) {
        set(outputCol, value);
        return this;
    }

    public TokenEmbedding setVectorSize(int value) {
        set(vectorSize, value);
        return this;
    }

    public TokenEmbedding setMinCount(int value) {
        set(minCount, value);
        return this;
    }

    public TokenEmbedding setWindowSize(int value) {
        set(windowSize, value);
        return this;
    }

    public TokenEmbedding setMaxIter(int value) {
        set(maxIter, value);
        return this;
    }

    public TokenEmbedding setNumPartitions(int value) {
        set(numPartitions, value);
        return this;
    }

    public TokenEmbedding setSeed(long value) {
        set(seed, value);
        return this;
    }

    @Override
    public StructType transformSchema(StructType schema) {
        return validateAndTransformSchema(schema);
    }

    @Override
    public TokenEmbeddingModel fit(Dataset<?> dataset) {
        transformSchema(dataset.schema(), true);
        Word2VecModel word2vec = new Word2Vec()
            .setInputCol(getInputCol())
            .setVectorSize((Integer) getOrDefault(vectorSize))
            .setMinCount((Integer) getOrDefault(minCount))
            .setWindowSize((Integer) getOrDefault(windowSize))
            .setMaxIter((Integer) getOrDefault(maxIter))
            .setNumPartitions((Integer) getOrDefault(numPartitions))
            .setSeed((Long) getOrDefault(seed))
            .fit(dataset.where(functions.col(getInputCol()).isNotNull()));  // Word2Vec fails on null rows
        TokenEmbeddingModel model = new TokenEmbeddingModel(uid,
            TokenEmbeddingModel.vectorsOf(word2vec.getVectors(), (Boolean) getOrDefault(normalize)));
        return copyValues(model, extractParamMap()).setParent(this);
    }

    @Override
    public TokenEmbedding copy(ParamMap extra) {
        return defaultCopy(extra);
    }

    public static MLReader<TokenEmbedding> read() {
        return new DefaultParamsReader<>();
    }

    public static TokenEmbedding load(String path) {
        return read().load(path);
    }
}

package io.sparkattention.examples.docs;

import io.sparkattention.io.MultiHeadAttentionStateDict;
import io.sparkattention.nn.MultiHeadAttentionInit;
import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * What the pages' Java blocks take as given — a SparkSession, small data frames, weights files — made by the
 * {@code <!-- given: ... -->} statements before a block, and the checks of its {@code <!-- then: ... -->}.
 */
public final class DocsGiven {

    private static volatile Path workDir;

    private DocsGiven() {
    }

    /** The test JVM's one SparkSession. */
    public static SparkSession spark() {
        return SparkTestSession.get();
    }

    static void workDir(Path dir) {
        workDir = dir;
    }

    /** A path in the running page's working directory. */
    public static String path(String name) {
        return workDir.resolve(name).toString();
    }

    /** A file or directory of the project's {@code examples/data} (the tests run in the examples module). */
    public static String exampleData(String name) {
        return Path.of("data").resolve(name).toAbsolutePath().toString();
    }

    /** Twelve sentences, the first six about the weather (label 0), the others about dancing (label 1). */
    static final List<String> SENTENCES = List.of("It rained all afternoon in Bath.",
        "The wind blew cold over the downs.", "A storm broke over the village at night.",
        "The morning was bright and warm.", "Snow lay deep on the road to Highbury.", "Fog hid the lane until noon.",
        "They danced two dances at the ball.", "The assembly rooms were full of dancers.",
        "He asked her for the next dance.", "The musicians struck up a reel.",
        "She stood up with Mr. Elton for the cotillion.", "The ball went on until two in the morning.");

    /** The label of sentence i: 0 (weather) or 1 (dancing). */
    static double label(int i) {
        return i < SENTENCES.size() / 2 ? 0.0 : 1.0;
    }

    /** {@link #SENTENCES} as a data frame: {@code text}, {@code label}. */
    public static Dataset<Row> sentences() {
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < SENTENCES.size(); i++) {
            rows.add(RowFactory.create(SENTENCES.get(i), label(i)));
        }
        StructType schema = new StructType().add("text", DataTypes.StringType).add("label", DataTypes.DoubleType);
        return spark().createDataFrame(rows, schema);
    }

    /**
     * Random sequences: {@code id}, {@code column} (L×width floats, L from 1 to maxLength) and {@code length}
     * (a key length from 1 to L).
     */
    public static Dataset<Row> sequences(String column, int rows, int width, int maxLength, long seed) {
        Random random = new Random(seed);
        List<Row> out = new ArrayList<>();
        for (int r = 0; r < rows; r++) {
            int length = 1 + random.nextInt(maxLength);
            List<List<Float>> matrix = new ArrayList<>();
            for (int p = 0; p < length; p++) {
                List<Float> values = new ArrayList<>();
                for (int i = 0; i < width; i++) {
                    values.add((float) random.nextGaussian());
                }
                matrix.add(values);
            }
            out.add(RowFactory.create((long) r, matrix, 1 + random.nextInt(length)));
        }
        StructType schema = new StructType().add("id", DataTypes.LongType)
            .add(column, DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.FloatType)))
            .add("length", DataTypes.IntegerType);
        return spark().createDataFrame(out, schema);
    }

    /**
     * The project's small labelled sequence set ({@code examples/data/sequences}: {@code id}, L×8 sequences,
     * {@code label} in {0, 1, 2}), the sequences in {@code column}; {@code file} is {@code train} or {@code test}.
     */
    public static Dataset<Row> labelledSequences(String file, String column) {
        StructType schema = new StructType().add("id", DataTypes.LongType)
            .add("query", DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.DoubleType)))
            .add("label", DataTypes.DoubleType);
        Path source = DocPage.root().resolve("examples/data/sequences/" + file + ".jsonl");
        return spark().read().schema(schema).json(source.toString()).withColumnRenamed("query", column);
    }

    /** PyTorch's default initialisation of an E-wide {@code nn.MultiheadAttention}, as a state_dict file. */
    public static void multiHeadAttentionWeights(String file, String prefix, int embedDim, int numHeads)
        throws IOException {
        Files.createDirectories(Path.of(file).getParent());
        MultiHeadAttentionStateDict.write(Path.of(file),
            MultiHeadAttentionInit.pytorchDefault(embedDim, numHeads, embedDim, embedDim, true, 7), prefix, null);
    }

    /** Fails with {@code message} unless {@code condition}. */
    public static void check(boolean condition, String message) {
        if (!condition) {
            throw new AssertionError(message);
        }
    }
}

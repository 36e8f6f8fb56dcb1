package io.sparkattention.ml.classification;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sparkattention.io.SafeTensors;
import io.sparkattention.io.SafeTensorsWriter;
import io.sparkattention.io.Tensor;
import io.sparkattention.testing.Matrices;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/** Training DataFrames for the classifier's tests: the PyTorch {@code cls_*} fixtures and seeded random sets. */
final class ClassifierData {

    static final DataType MATRIX = DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.FloatType));
    static final String[] STATE_DICT = {"attention.in_proj_weight", "attention.in_proj_bias",
        "attention.out_proj.weight", "attention.out_proj.bias", "classifier.weight", "classifier.bias"};

    private ClassifierData() {
    }

    /** One {@code cls_*} fixture (see src/test/resources/fixtures/training/README.md). */
    static final class Fixture {
        final SafeTensors st;
        final JsonNode config;
        final int rows;
        final int maxLength;
        final int embedDim;
        final float[] query;
        final long[] lengths;
        final double[] labels;
        final float[] weights;

        Fixture(String name) throws IOException {
            URL url = ClassifierData.class.getResource("/fixtures/training/" + name + ".safetensors");
            try {
                st = SafeTensors.read(Paths.get(url.toURI()));
            } catch (URISyntaxException e) {
                throw new IllegalStateException(e);
            }
            config = new ObjectMapper().readTree(st.metadata().get("config"));
            long[] shape = st.shape("input.query");
            rows = (int) shape[0];
            maxLength = (int) shape[1];
            embedDim = (int) shape[2];
            query = st.floats("input.query");
            lengths = st.longs("input.lengths");
            labels = st.doubles("input.label");
            weights = st.has("input.weight") ? st.floats("input.weight") : null;
        }

        /**
         * Columns {@code id} (the fixture's row), {@code features} (each row only its valid tokens, or all {@code maxLength} with
         * {@code padded}), {@code label}, {@code weight} (1 without row weights) and
         * {@code key_length}, in {@code partitions} partitions.
         */
        Dataset<Row> frame(SparkSession spark, boolean padded, int partitions) {
            List<Row> out = new ArrayList<>();
            for (int b = 0; b < rows; b++) {
                int n = padded ? maxLength : (int) lengths[b];
                float[] x = new float[n * embedDim];
                System.arraycopy(query, b * maxLength * embedDim, x, 0, n * embedDim);
                out.add(RowFactory.create(b, Matrices.floats(x, n, embedDim), labels[b],
                    weights == null ? 1.0 : (double) weights[b], (int) lengths[b]));
            }
            StructType schema = new StructType().add("id", DataTypes.IntegerType).add("features", MATRIX)
                .add("label", DataTypes.DoubleType).add("weight", DataTypes.DoubleType).add("key_length", DataTypes.IntegerType);
            return spark.createDataFrame(out, schema).repartition(partitions);
        }

        /** The tensors {@code prefix + name} under the state_dict's own names, as float64. */
        double[] tensor(String prefix, String name) throws IOException {
            return st.doubles(prefix + name);
        }

        /** Writes the starting state_dict under PyTorch's names. */
        Path writeInitial(Path dir) throws IOException {
            Map<String, Tensor> tensors = new LinkedHashMap<>();
            for (String name : STATE_DICT) {
                long[] shape = st.shape("initial." + name);
                tensors.put(name, Tensor.f32(st.floats("initial." + name), shape));
            }
            Path file = dir.resolve("initial.safetensors");
            SafeTensorsWriter.write(file, tensors, null);
            return file;
        }

        String text(String key) {
            return config.get(key).asText();
        }

        static Fixture open(String name) {
            try {
                return new Fixture(name);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /**
     * {@code rows} ragged sequences of 2–7 tokens of width {@code embedDim}, seeded; the label is
     * the class whose feature (column {@code label % embedDim}) has the largest mean over the row,
     * so a classifier can learn it.
     */
    static Dataset<Row> random(SparkSession spark, int rows, int embedDim, int numClasses, long seed,
                               int partitions) {
        return random(spark, rows, embedDim, numClasses, 1.5f, 1f, seed, partitions);
    }

    /**
     * As {@link #random(SparkSession, int, int, int, long, int)}, with features uniform in
     * [-scale, scale] and {@code signal} added to the label's feature: a weak signal gives a slow start.
     */
    static Dataset<Row> random(SparkSession spark, int rows, int embedDim, int numClasses, float signal, float scale,
                               long seed, int partitions) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Row> out = new ArrayList<>();
        for (int b = 0; b < rows; b++) {
            int n = 2 + random.nextInt(6);
            int label = random.nextInt(numClasses);
            float[] x = new float[n * embedDim];
            for (int i = 0; i < x.length; i++) {
                x[i] = (float) (random.nextDouble() * 2 - 1) * scale;
            }
            for (int t = 0; t < n; t++) {
                x[t * embedDim + label % embedDim] += signal;
            }
            out.add(RowFactory.create(Matrices.floats(x, n, embedDim), (double) label));
        }
        StructType schema = new StructType().add("features", MATRIX).add("label", DataTypes.DoubleType);
        return spark.createDataFrame(out, schema).repartition(partitions);
    }
}

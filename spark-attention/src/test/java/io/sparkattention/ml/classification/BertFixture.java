package io.sparkattention.ml.classification;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sparkattention.io.SafeTensors;
import io.sparkattention.io.SafeTensorsWriter;
import io.sparkattention.io.Tensor;
import io.sparkattention.ml.feature.BertEncoderModel;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
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

/**
 * One case of src/test/resources/fixtures/finetune (see {@code make_finetune_fixtures.py}): its
 * rows as a DataFrame of token ids, labels and weights, its starting encoder and head, its
 * settings as a {@link BertClassifier}, and its expected tensors.
 */
final class BertFixture {

    /** The visible cases. */
    static final String[] CASES = {"ft_all_adamw_warmup_clip", "ft_top1_adam_weighted", "ft_head_only_cls"};

    final String name;
    final Path file;
    final SafeTensors st;
    final JsonNode config;

    private BertFixture(String name) throws IOException, URISyntaxException {
        this.name = name;
        URL url = BertFixture.class.getResource("/fixtures/finetune/" + name + ".safetensors");
        if (url == null) {
            throw new IllegalArgumentException("no fine-tuning fixture " + name);
        }
        this.file = Paths.get(url.toURI());
        this.st = SafeTensors.read(file);
        this.config = new ObjectMapper().readTree(st.metadata().get("config"));
    }

    static BertFixture open(String name) {
        try {
            return new BertFixture(name);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The rows (input_ids array<int>, label int, weight double), in order, in {@code partitions} partitions. */
    Dataset<Row> frame(SparkSession spark, int partitions) throws IOException {
        long[] ids = st.longs("input.ids");
        long[] lengths = st.longs("input.lengths");
        long[] labels = st.longs("input.label");
        double[] weights = st.has("input.weight") ? st.doubles("input.weight") : null;
        List<Row> rows = new ArrayList<>();
        int at = 0;
        for (int r = 0; r < lengths.length; r++) {
            int[] row = new int[(int) lengths[r]];
            for (int i = 0; i < row.length; i++) {
                row[i] = (int) ids[at++];
            }
            rows.add(RowFactory.create(row, (int) labels[r], weights == null ? 1.0 : weights[r]));
        }
        StructType schema = new StructType()
            .add("input_ids", DataTypes.createArrayType(DataTypes.IntegerType, false))
            .add("label", DataTypes.IntegerType)
            .add("weight", DataTypes.DoubleType);
        // parallelize keeps the rows' order whatever the partition count (repartition would shuffle it).
        return spark.createDataFrame(JavaSparkContext.fromSparkContext(spark.sparkContext()).parallelize(rows,
            partitions), schema);
    }

    /** Writes the starting head ({@code classifier.weight}, {@code classifier.bias}) to a file in {@code dir}. */
    Path writeHead(Path dir) throws IOException {
        Path out = dir.resolve(name + "-head.safetensors");
        int k = config.get("num_classes").asInt();
        int e = config.get("hidden").asInt();
        Map<String, Tensor> head = new LinkedHashMap<>();
        head.put("classifier.weight", Tensor.f32(st.floats("initial.classifier.weight"), k, e));
        head.put("classifier.bias", Tensor.f32(st.floats("initial.classifier.bias"), k));
        SafeTensorsWriter.write(out, head, Map.of());
        return out;
    }

    /** The fixture's settings as an estimator starting from its encoder and head (dropout off, as the fixtures). */
    BertClassifier stage(Path head) {
        BertClassifier stage = new BertClassifier()
            .setEncoder(BertEncoderModel.fromSafeTensors(file.toString(), "initial.", config.get("num_heads").asInt()))
            .setInitialWeightsPath(head.toString())
            .setTrainableLayers(config.get("trainable_layers").asInt())
            .setPooling(config.get("pooling").asText())
            .setSolver(config.get("solver").asText())
            .setStepSize(stepSize())
            .setWeightDecay(config.get("weight_decay").asDouble())
            .setWarmupSteps(config.get("warmup_steps").asInt())
            .setMaxGradNorm(config.get("max_grad_norm").asDouble())
            .setDropout(0.0)
            .setMaxIter(steps());
        return config.get("weighted").asBoolean() ? stage.setWeightCol("weight") : stage;
    }

    int steps() {
        return config.get("steps").asInt();
    }

    double stepSize() {
        return config.get("step_size").asDouble();
    }

    /** The learning rate's sum over the steps: the key biases' bound (their true gradient is 0). */
    double learningRateSum() {
        int steps = steps();
        int warmup = config.get("warmup_steps").asInt();
        double sum = 0;
        for (int t = 0; t < steps; t++) {
            sum += stepSize() * (t < warmup ? (double) t / Math.max(1, warmup)
                : Math.max(0.0, (double) (steps - t) / Math.max(1, steps - warmup)));
        }
        return sum;
    }

    double[] doubles(String tensor) {
        try {
            return st.doubles(tensor);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The names of the expected final tensors, without their {@code expected.final.} prefix. */
    List<String> finalNames() {
        List<String> names = new ArrayList<>();
        for (String n : st.names()) {
            if (n.startsWith("expected.final.")) {
                names.add(n.substring("expected.final.".length()));
            }
        }
        return names;
    }
}

package io.sparkattention.bert;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sparkattention.io.SafeTensors;
import io.sparkattention.nn.Pooling;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One case of src/test/resources/fixtures/finetune (see the README there): the encoder and head
 * it starts from, its rows and its settings.
 */
final class FineTuneFixture {

    /** The visible cases, then the ones made with the script's {@code --hidden} sizes. */
    static final String[] CASES = {"ft_all_adamw_warmup_clip", "ft_top1_adam_weighted", "ft_head_only_cls",
        "ft_hidden_all", "ft_hidden_top2_weighted", "ft_hidden_cls_adam"};

    final String name;
    final SafeTensors st;
    final JsonNode config;
    final BertConfig bert;
    final BertWeights initial;
    final float[] classifierWeight;
    final float[] classifierBias;
    final int[][] rows;
    final int[] labels;
    final double[] weights;

    private FineTuneFixture(String name) throws IOException {
        this.name = name;
        URL url = FineTuneFixture.class.getResource("/fixtures/finetune/" + name + ".safetensors");
        if (url == null) {
            throw new IllegalArgumentException("no fine-tuning fixture " + name);
        }
        try {
            this.st = SafeTensors.read(Paths.get(url.toURI()));
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        this.config = new ObjectMapper().readTree(st.metadata().get("config"));
        int typeRows = (int) st.shape("initial." + BertWeights.TOKEN_TYPE_EMBEDDINGS)[0];
        this.bert = new BertConfig(config.get("layers").asInt(), config.get("hidden").asInt(),
            config.get("num_heads").asInt(), config.get("intermediate").asInt(), config.get("max_positions").asInt(),
            config.get("vocab").asInt(), typeRows, (float) config.get("eps").asDouble());
        Map<String, float[]> tensors = new LinkedHashMap<>();
        for (String n : BertWeights.shapes(bert).keySet()) {
            tensors.put(n, st.floats("initial." + n));
        }
        this.initial = new BertWeights(bert, tensors);
        this.classifierWeight = st.floats("initial.classifier.weight");
        this.classifierBias = st.floats("initial.classifier.bias");
        long[] ids = st.longs("input.ids");
        long[] lengths = st.longs("input.lengths");
        this.rows = new int[lengths.length][];
        int at = 0;
        for (int r = 0; r < lengths.length; r++) {
            rows[r] = new int[(int) lengths[r]];
            for (int i = 0; i < lengths[r]; i++) {
                rows[r][i] = (int) ids[at++];
            }
        }
        long[] y = st.longs("input.label");
        this.labels = new int[y.length];
        for (int r = 0; r < y.length; r++) {
            labels[r] = (int) y[r];
        }
        this.weights = new double[rows.length];
        if (st.has("input.weight")) {
            System.arraycopy(st.doubles("input.weight"), 0, weights, 0, rows.length);
        } else {
            Arrays.fill(weights, 1.0);
        }
    }

    static FineTuneFixture open(String name) {
        try {
            return new FineTuneFixture(name);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    BertClassifierSettings settings() {
        return new BertClassifierSettings(config.get("trainable_layers").asInt(),
            Pooling.parse(config.get("pooling").asText()), config.get("dropout").asDouble());
    }

    BertClassifierNetwork network() {
        return new BertClassifierNetwork(initial, classifierWeight, classifierBias, settings());
    }

    int steps() {
        return config.get("steps").asInt();
    }

    double stepSize() {
        return config.get("step_size").asDouble();
    }

    double[] doubles(String name) {
        try {
            return st.doubles(name);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

package io.sparkattention.nn;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sparkattention.io.SafeTensors;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Paths;
import java.util.Arrays;

/**
 * One {@code cls_*} case of src/test/resources/fixtures/training (see the README there): the
 * network it describes, its rows and its starting parameters as a flat vector.
 */
final class ClassifierFixture {

    final String name;
    final SafeTensors st;
    final JsonNode config;
    final AttentionClassifierNetwork net;
    final int rows;
    final int maxLength;
    final float[] query;
    final long[] lengths;
    final int[] labels;
    final double[] weights;

    private ClassifierFixture(String name) throws IOException {
        this.name = name;
        URL url = ClassifierFixture.class.getResource("/fixtures/training/" + name + ".safetensors");
        if (url == null) {
            throw new IllegalArgumentException("no training fixture " + name);
        }
        try {
            this.st = SafeTensors.read(Paths.get(url.toURI()));
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        this.config = new ObjectMapper().readTree(st.metadata().get("config"));
        this.net = new AttentionClassifierNetwork(config.get("embed_dim").asInt(), config.get("num_heads").asInt(),
            config.get("num_classes").asInt(), config.get("causal").asBoolean(), config.get("residual").asBoolean(),
            Pooling.parse(config.get("pooling").asText()));
        long[] shape = st.shape("input.query");
        this.rows = (int) shape[0];
        this.maxLength = (int) shape[1];
        this.query = st.floats("input.query");
        this.lengths = st.longs("input.lengths");
        double[] y = st.doubles("input.label");
        this.labels = new int[rows];
        for (int b = 0; b < rows; b++) {
            labels[b] = (int) y[b];
        }
        this.weights = new double[rows];
        if (st.has("input.weight")) {
            double[] w = st.doubles("input.weight");
            System.arraycopy(w, 0, weights, 0, rows);
        } else {
            Arrays.fill(weights, 1.0);
        }
    }

    static ClassifierFixture open(String name) {
        try {
            return new ClassifierFixture(name);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Row b's valid tokens, length(b)×E. */
    float[] row(int b) {
        int e = net.embedDim();
        int start = b * maxLength * e;
        return Arrays.copyOfRange(query, start, start + length(b) * e);
    }

    int length(int b) {
        return (int) lengths[b];
    }

    /** The tensors under {@code prefix} (initial., expected.grad., expected.final.) as one flat vector, float64. */
    double[] flat(String prefix) {
        double[] out = new double[net.parameterCount()];
        for (ParameterTensor t : net.parameters()) {
            try {
                double[] values = st.doubles(prefix + t.name());
                System.arraycopy(values, 0, out, t.offset(), t.size());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return out;
    }

    float[] initialParameters() {
        double[] d = flat("initial.");
        float[] f = new float[d.length];
        for (int i = 0; i < d.length; i++) {
            f[i] = (float) d[i];
        }
        return f;
    }

    /** The full-batch loss Σ wᵢ·CEᵢ / Σ wᵢ at {@code theta}, and its gradient into {@code grad} (overwritten). */
    double lossAndGradient(float[] theta, double[] grad) {
        Arrays.fill(grad, 0);
        ClassifierEvaluator step = net.bind(theta);
        double loss = 0, total = 0;
        for (int b = 0; b < rows; b++) {
            loss += step.accumulate(row(b), length(b), labels[b], weights[b], grad);
            total += weights[b];
        }
        for (int i = 0; i < grad.length; i++) {
            grad[i] /= total;
        }
        return loss / total;
    }

    /** B×K logits at {@code theta}. */
    float[] logits(float[] theta) {
        ClassifierEvaluator step = net.bind(theta);
        int k = net.numClasses();
        float[] out = new float[rows * k];
        float[] one = new float[k];
        for (int b = 0; b < rows; b++) {
            step.logits(row(b), length(b), one);
            System.arraycopy(one, 0, out, b * k, k);
        }
        return out;
    }

    Optimizer optimizer() {
        double lr = config.get("step_size").asDouble();
        if ("gd".equals(config.get("solver").asText())) {
            return Optimizer.gradientDescent(lr);
        }
        JsonNode betas = config.get("adam_betas");
        return Optimizer.adam(lr, betas.get(0).asDouble(), betas.get(1).asDouble(), config.get("adam_eps").asDouble(),
            config.get("weight_decay").asDouble());
    }

    int steps() {
        return config.get("steps").asInt();
    }

    double[] expected(String tensor) {
        try {
            return st.doubles(tensor);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

package io.sparkattention.examples.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sparkattention.io.SafeTensors;
import io.sparkattention.io.SafeTensorsWriter;
import io.sparkattention.io.Tensor;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One {@code cls_*} training fixture of the library's test resources (PyTorch autograd in
 * float64; README.md beside them) as the command line sees it: a JSON lines input of the rows cut
 * to their lengths, the {@code initial.*} tensors as a state_dict for {@code --initial-weights},
 * and the {@code train} arguments of the fixture's settings.
 */
final class TrainFixture {

    /** Every classifier fixture. */
    static final String[] ALL = {"cls_basic", "cls_causal_last", "cls_first_noresidual_gd", "cls_weighted_adamw"};
    /** The reference module's state_dict, in order. */
    static final String[] STATE_DICT = {"attention.in_proj_weight", "attention.in_proj_bias",
        "attention.out_proj.weight", "attention.out_proj.bias", "classifier.weight", "classifier.bias"};

    final String name;
    final SafeTensors st;
    final JsonNode config;
    final int rows;
    final int embedDim;
    final boolean weighted;

    private TrainFixture(String name) throws IOException {
        this.name = name;
        this.st = SafeTensors.read(copy(name));
        this.config = new ObjectMapper().readTree(st.metadata().get("config"));
        this.rows = (int) st.shape("input.query")[0];
        this.embedDim = config.get("embed_dim").asInt();
        this.weighted = st.has("input.weight");
    }

    static TrainFixture open(String name) {
        try {
            return new TrainFixture(name);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The fixture as a file (a resource inside the library's test-jar has no path of its own). */
    private static Path copy(String name) throws IOException {
        String resource = "/fixtures/training/" + name + ".safetensors";
        URL url = TrainFixture.class.getResource(resource);
        if (url == null) {
            throw new IllegalArgumentException("no training fixture " + resource);
        }
        Path file = Files.createTempFile(name + "-", ".safetensors");
        file.toFile().deleteOnExit();
        try (InputStream in = url.openStream()) {
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
        }
        return file;
    }

    /** The rows as JSON objects: query (cut to the row's length, float32 values exactly), label, weight. */
    List<Map<String, Object>> jsonRows() throws IOException {
        int maxLength = (int) st.shape("input.query")[1];
        float[] query = st.floats("input.query");
        long[] lengths = st.longs("input.lengths");
        double[] labels = st.doubles("input.label");
        float[] weights = weighted ? st.floats("input.weight") : null;
        List<Map<String, Object>> out = new ArrayList<>();
        for (int b = 0; b < rows; b++) {
            double[][] x = new double[(int) lengths[b]][embedDim];
            for (int t = 0; t < x.length; t++) {
                for (int c = 0; c < embedDim; c++) {
                    x[t][c] = query[(b * maxLength + t) * embedDim + c];
                }
            }
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("query", x);
            row.put("label", (long) labels[b]);
            if (weighted) {
                row.put("weight", (double) weights[b]);
            }
            out.add(row);
        }
        return out;
    }

    /** Writes the input as JSON lines. */
    Path writeInput(Path file) throws IOException {
        Cli.writeJsonLines(file, jsonRows());
        return file;
    }

    /** Writes the {@code initial.*} tensors under their state_dict names. */
    Path writeInitial(Path file) throws IOException {
        Map<String, Tensor> tensors = new LinkedHashMap<>();
        for (String tensor : STATE_DICT) {
            tensors.put(tensor, Tensor.f32(st.floats("initial." + tensor), st.shape("initial." + tensor)));
        }
        SafeTensorsWriter.write(file, tensors, null);
        return file;
    }

    /** {@code train} with the fixture's settings. */
    List<String> args(Path input, Path initial, Path model, Path export) {
        List<String> args = new ArrayList<>(List.of("train", "--input", input.toString(),
            "--num-heads", config.get("num_heads").asText(), "--output", model.toString(),
            "--solver", config.get("solver").asText(), "--max-iter", config.get("steps").asText(),
            "--step-size", config.get("step_size").asText(), "--weight-decay", config.get("weight_decay").asText(),
            "--pooling", config.get("pooling").asText(), "--initial-weights", initial.toString(),
            "--master", Cli.MASTER));
        if (config.get("causal").asBoolean()) {
            args.add("--causal");
        }
        if (!config.get("residual").asBoolean()) {
            args.add("--no-residual");
        }
        if (weighted) {
            args.addAll(List.of("--weight-col", "weight"));
        }
        if (export != null) {
            args.addAll(List.of("--export-pytorch", export.toString()));
        }
        return args;
    }

    int steps() {
        return config.get("steps").asInt();
    }

    boolean gd() {
        return "gd".equals(config.get("solver").asText());
    }

    /** expected.loss_history followed by expected.final_loss: what stdout's lines must say. */
    double[] expectedLosses() throws IOException {
        double[] out = Arrays.copyOf(st.doubles("expected.loss_history"), steps() + 1);
        out[steps()] = st.doubles("expected.final_loss")[0];
        return out;
    }

    double[] doubles(String tensor) {
        try {
            return st.doubles(tensor);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

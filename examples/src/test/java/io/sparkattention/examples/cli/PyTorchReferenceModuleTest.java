package io.sparkattention.examples.cli;

import io.sparkattention.io.SafeTensorsWriter;
import io.sparkattention.io.Tensor;
import io.sparkattention.ml.classification.AttentionClassificationModel;
import io.sparkattention.testing.Matrices;
import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The shipped PyTorch module ({@code examples/python/spark_attention_reference.py}) on exports of
 * the {@code cls_*} fixtures' trained weights: its logits are the Java model's rawPrediction on
 * the same ragged rows, and the fixtures' own float64 logits, within 1e-4 relative (the docs'
 * snippets run in {@code DocsCodeBlocksTest}). Needs a {@code python3} with {@code torch} (Debian's
 * {@code python3-torch}); without one the tests are skipped, and say so.
 */
class PyTorchReferenceModuleTest {

    /** Relative tolerance per row: ‖python − java‖ / ‖java‖. */
    static final double TOLERANCE = 1e-4;
    /** Interpreters tried in order: the one on PATH, then Debian's (where python3-torch installs). */
    static final String[] PYTHONS = {"python3", "/usr/bin/python3"};

    private static String python;

    @TempDir
    Path dir;

    @BeforeAll
    static void findPython() throws Exception {
        for (String candidate : PYTHONS) {
            if (run(List.of(candidate, "-c", "import torch"), null).exitCode == 0) {
                python = candidate;
                return;
            }
        }
    }

    private static void assumePython() {
        String why = "no python3 with torch (tried " + String.join(", ", PYTHONS) + "; apt-get install python3-torch)";
        if (python == null) {
            System.out.println("SKIPPED PyTorchReferenceModuleTest: " + why);
        }
        assumeTrue(python != null, "skipped: " + why);
    }

    @Test
    @DisplayName("load_classifier(export)(x, lengths) is the Java model's rawPrediction and the fixture's logits")
    void moduleMatchesTheJavaModel() throws Exception {
        assumePython();
        SparkTestSession.get();
        List<Map<String, Object>> job = new ArrayList<>();
        Map<String, double[][]> javaLogits = new LinkedHashMap<>();
        Map<String, TrainFixture> fixtures = new LinkedHashMap<>();
        for (String name : TrainFixture.ALL) {
            TrainFixture f = TrainFixture.open(name);
            fixtures.put(name, f);
            Path export = export(f, dir.resolve(name + ".safetensors"));
            AttentionClassificationModel model = AttentionClassificationModel.load(saved(f, export));
            javaLogits.put(name, rawPredictions(model, f));
            Map<String, Object> job1 = new LinkedHashMap<>();
            job1.put("name", name);
            job1.put("export", export.toString());
            job1.put("x", padded(f));
            job1.put("lengths", f.st.longs("input.lengths"));
            job.add(job1);
        }
        Path jobFile = dir.resolve("job.json");
        Path outFile = dir.resolve("out.json");
        Cli.JSON.writeValue(jobFile.toFile(), job);
        Result r = run(List.of(python, script().toString(), moduleDir().toString(), jobFile.toString(),
            outFile.toString()), null);
        assertEquals(0, r.exitCode, r.output);
        JsonNode out = Cli.JSON.readTree(outFile.toFile());
        for (String name : TrainFixture.ALL) {
            double[][] java = javaLogits.get(name);
            TrainFixture f = fixtures.get(name);
            double[] fixture = f.doubles("expected.logits_final");
            JsonNode py = out.get(name);
            assertEquals(java.length, py.size(), name);
            for (int b = 0; b < java.length; b++) {
                double[] p = new double[java[b].length];
                double[] ref = new double[p.length];
                for (int k = 0; k < p.length; k++) {
                    p[k] = py.get(b).get(k).asDouble();
                    ref[k] = fixture[b * p.length + k];
                }
                assertClose(java[b], p, name + " row " + b + " against the Java model");
                assertClose(ref, p, name + " row " + b + " against the fixture's float64 logits");
            }
        }
    }

    /** The fixture's trained weights through the Java model and out again by exportPyTorch. */
    private static Path export(TrainFixture f, Path export) throws IOException {
        Path state = Files.createTempFile("state-", ".safetensors");
        try {
            Map<String, Tensor> tensors = new LinkedHashMap<>();
            for (String tensor : TrainFixture.STATE_DICT) {
                double[] v = f.doubles("expected.final." + tensor);
                float[] values = new float[v.length];
                for (int i = 0; i < v.length; i++) {
                    values[i] = (float) v[i];
                }
                tensors.put(tensor, Tensor.f32(values, f.st.shape("expected.final." + tensor)));
            }
            SafeTensorsWriter.write(state, tensors, null);
            AttentionClassificationModel model = AttentionClassificationModel.fromSafeTensors(state.toString(),
                f.config.get("num_heads").asInt(), f.config.get("causal").asBoolean(),
                f.config.get("residual").asBoolean(), f.config.get("pooling").asText());
            model.exportPyTorch(export.toString());
            return export;
        } finally {
            Files.deleteIfExists(state);
        }
    }

    /** The export read back as a saved model directory would be: what predict applies. */
    private String saved(TrainFixture f, Path export) {
        AttentionClassificationModel model = AttentionClassificationModel.fromSafeTensors(export.toString(),
            f.config.get("num_heads").asInt(), f.config.get("causal").asBoolean(),
            f.config.get("residual").asBoolean(), f.config.get("pooling").asText());
        String path = dir.resolve(f.name + "-model").toString();
        try {
            model.write().save(path);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return path;
    }

    /** rawPrediction of every row: features padded to the fixture's L, with a key_length column. */
    private static double[][] rawPredictions(AttentionClassificationModel model, TrainFixture f) throws IOException {
        int maxLength = (int) f.st.shape("input.query")[1];
        float[] query = f.st.floats("input.query");
        long[] lengths = f.st.longs("input.lengths");
        List<Row> rows = new ArrayList<>();
        for (int b = 0; b < f.rows; b++) {
            float[] x = new float[maxLength * f.embedDim];
            System.arraycopy(query, b * maxLength * f.embedDim, x, 0, x.length);
            rows.add(RowFactory.create(b, Matrices.floats(x, maxLength, f.embedDim), (int) lengths[b]));
        }
        StructType schema = new StructType().add("id", DataTypes.IntegerType)
            .add("features", DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.FloatType)))
            .add("key_length", DataTypes.IntegerType);
        Dataset<Row> df = SparkTestSession.get().createDataFrame(rows, schema).repartition(2);
        List<Row> out = model.setKeyLengthCol("key_length").transform(df).orderBy("id").select("rawPrediction")
            .collectAsList();
        double[][] logits = new double[out.size()][];
        for (int b = 0; b < logits.length; b++) {
            logits[b] = ((Vector) out.get(b).get(0)).toArray();
        }
        return logits;
    }

    /** The rows as B×L×E nested lists, padded with the fixture's zeros. */
    private static double[][][] padded(TrainFixture f) throws IOException {
        long[] shape = f.st.shape("input.query");
        float[] query = f.st.floats("input.query");
        double[][][] x = new double[(int) shape[0]][(int) shape[1]][(int) shape[2]];
        int i = 0;
        for (double[][] row : x) {
            for (double[] token : row) {
                for (int c = 0; c < token.length; c++) {
                    token[c] = query[i++];
                }
            }
        }
        return x;
    }

    private static void assertClose(double[] expected, double[] actual, String what) {
        double diff = 0;
        double norm = 0;
        for (int k = 0; k < expected.length; k++) {
            diff += (actual[k] - expected[k]) * (actual[k] - expected[k]);
            norm += expected[k] * expected[k];
        }
        assertTrue(Math.sqrt(diff) <= TOLERANCE * Math.sqrt(norm), what + ": relative error "
            + Math.sqrt(diff / norm));
    }

    /** The repository's root: the working directory (the examples module) or its parent. */
    private static Path repositoryRoot() {
        Path cwd = Path.of(System.getProperty("user.dir")).toAbsolutePath();
        return Files.isDirectory(cwd.resolve("examples").resolve("python")) ? cwd : cwd.getParent();
    }

    private static Path moduleDir() {
        return repositoryRoot().resolve("examples").resolve("python");
    }

    private Path script() throws IOException {
        Path file = dir.resolve("reference_logits.py");
        try (InputStream in = PyTorchReferenceModuleTest.class.getResourceAsStream("/python/reference_logits.py")) {
            Files.copy(in, file);
        }
        return file;
    }

    private static final class Result {
        final int exitCode;
        final String output;

        Result(int exitCode, String output) {
            this.exitCode = exitCode;
            this.output = output;
        }
    }

    /** Runs a process to its end (at most 5 minutes), stdout and stderr together. */
    private static Result run(List<String> command, Path workingDirectory) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        if (workingDirectory != null) {
            pb.directory(workingDirectory.toFile());
        }
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            return new Result(-1, e.getMessage());
        }
        byte[] output = p.getInputStream().readAllBytes();
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            return new Result(-1, "timed out");
        }
        return new Result(p.exitValue(), new String(output, StandardCharsets.UTF_8));
    }
}

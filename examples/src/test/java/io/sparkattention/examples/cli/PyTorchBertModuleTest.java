package io.sparkattention.examples.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.sparkattention.io.SafeTensors;
import io.sparkattention.io.SafeTensorsWriter;
import io.sparkattention.io.Tensor;
import io.sparkattention.ml.classification.BertClassificationModel;
import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The shipped PyTorch module ({@code examples/python/spark_attention_bert.py}) on exports of the
 * fine-tuning fixtures' final weights: {@code load_bert_classifier(export)(rows)} gives the Java
 * model's rawPrediction on the same unpadded rows within 1e-4 relative. Needs a {@code python3}
 * with {@code torch}; without one the test is skipped, and says so.
 */
class PyTorchBertModuleTest {

    private static final double TOLERANCE = 1e-4;
    private static final String[] CASES = {"ft_all_adamw_warmup_clip", "ft_top1_adam_weighted", "ft_head_only_cls"};

    @TempDir
    Path dir;

    @Test
    @DisplayName("load_bert_classifier(export)(rows) is the Java model's rawPrediction for every fixture")
    void moduleMatchesTheJavaModel() throws Exception {
        String python = null;
        for (String candidate : PyTorchReferenceModuleTest.PYTHONS) {
            if (run(List.of(candidate, "-c", "import torch")).startsWith("0")) {
                python = candidate;
                break;
            }
        }
        assumeTrue(python != null, "skipped: no python3 with torch (apt-get install python3-torch)");
        SparkTestSession.get();
        List<Map<String, Object>> job = new ArrayList<>();
        Map<String, double[][]> javaLogits = new LinkedHashMap<>();
        for (String name : CASES) {
            Path fixture = dir.resolve(name + ".safetensors");
            try (InputStream in = getClass().getResourceAsStream("/fixtures/finetune/" + name + ".safetensors")) {
                Files.copy(in, fixture, StandardCopyOption.REPLACE_EXISTING);
            }
            SafeTensors st = SafeTensors.read(fixture);
            JsonNode config = Cli.JSON.readTree(st.metadata().get("config"));
            Map<String, Tensor> finals = new LinkedHashMap<>();
            for (String tensor : st.names()) {
                if (tensor.startsWith("expected.final.")) {
                    double[] v = st.doubles(tensor);
                    float[] f = new float[v.length];
                    for (int i = 0; i < v.length; i++) {
                        f[i] = (float) v[i];
                    }
                    finals.put(tensor.substring("expected.final.".length()), Tensor.f32(f, st.shape(tensor)));
                }
            }
            Path state = dir.resolve(name + "-final.safetensors");
            SafeTensorsWriter.write(state, finals, Map.of());
            BertClassificationModel model = BertClassificationModel.fromSafeTensors(state.toString(), "",
                config.get("num_heads").asInt(), config.get("pooling").asText());
            Path export = dir.resolve(name + "-export.safetensors");
            model.exportPyTorch(export.toString());
            List<int[]> rows = rows(st);
            javaLogits.put(name, rawPredictions(model, rows));
            Map<String, Object> one = new LinkedHashMap<>();
            one.put("name", name);
            one.put("export", export.toString());
            one.put("rows", rows);
            job.add(one);
        }
        Path jobFile = dir.resolve("job.json");
        Path outFile = dir.resolve("out.json");
        Cli.JSON.writeValue(jobFile.toFile(), job);
        Path script = dir.resolve("bert_logits.py");
        try (InputStream in = getClass().getResourceAsStream("/python/bert_logits.py")) {
            Files.copy(in, script);
        }
        Path moduleDir = Path.of(System.getProperty("user.dir")).resolve("python");
        if (!Files.isDirectory(moduleDir)) {
            moduleDir = Path.of(System.getProperty("user.dir")).resolve("examples").resolve("python");
        }
        String r = run(List.of(python, script.toString(), moduleDir.toString(), jobFile.toString(),
            outFile.toString()));
        assertTrue(r.startsWith("0"), r);
        JsonNode out = Cli.JSON.readTree(outFile.toFile());
        for (String name : CASES) {
            double[][] java = javaLogits.get(name);
            JsonNode py = out.get(name);
            assertEquals(java.length, py.size(), name);
            for (int b = 0; b < java.length; b++) {
                double diff = 0, norm = 0;
                for (int k = 0; k < java[b].length; k++) {
                    double d = py.get(b).get(k).asDouble() - java[b][k];
                    diff += d * d;
                    norm += java[b][k] * java[b][k];
                }
                assertTrue(Math.sqrt(diff) <= TOLERANCE * Math.sqrt(norm), name + " row " + b + ": relative error "
                    + Math.sqrt(diff / norm));
            }
        }
    }

    static List<int[]> rows(SafeTensors st) throws Exception {
        long[] ids = st.longs("input.ids");
        long[] lengths = st.longs("input.lengths");
        List<int[]> rows = new ArrayList<>();
        int at = 0;
        for (long length : lengths) {
            int[] row = new int[(int) length];
            for (int i = 0; i < row.length; i++) {
                row[i] = (int) ids[at++];
            }
            rows.add(row);
        }
        return rows;
    }

    private static double[][] rawPredictions(BertClassificationModel model, List<int[]> ids) {
        List<Row> rows = new ArrayList<>();
        for (int b = 0; b < ids.size(); b++) {
            rows.add(RowFactory.create(b, ids.get(b)));
        }
        StructType schema = new StructType().add("id", DataTypes.IntegerType)
            .add("input_ids", DataTypes.createArrayType(DataTypes.IntegerType));
        Dataset<Row> df = SparkTestSession.get().createDataFrame(rows, schema).repartition(2);
        List<Row> out = model.transform(df).orderBy("id").select("rawPrediction").collectAsList();
        double[][] logits = new double[out.size()][];
        for (int b = 0; b < logits.length; b++) {
            logits[b] = ((Vector) out.get(b).get(0)).toArray();
        }
        return logits;
    }

    /** Runs a process to its end: its exit code, a newline, then its output (stdout and stderr). */
    static String run(List<String> command) throws Exception {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (java.io.IOException e) {
            return "-1\n" + e.getMessage();
        }
        byte[] output = p.getInputStream().readAllBytes();
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            return "-1\ntimed out";
        }
        return p.exitValue() + "\n" + new String(output, StandardCharsets.UTF_8);
    }
}

package io.sparkattention.ml.classification;

import io.sparkattention.io.SafeTensors;
import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link BertClassifier#fit} against PyTorch's float64 autograd (the fine-tuning fixtures): from
 * the fixture's encoder and head, through Spark on several layouts, the loss history and every
 * exported tensor match within 1e-4 relative (the attention key biases, whose true gradient is 0,
 * within the learning rate's sum over the steps); and the input's partitioning changes no bit.
 */
class BertClassifierFixturesTest {

    private static final double TOLERANCE = 1e-4;

    private final SparkSession spark = SparkTestSession.get();

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}, {1} input partitions, numPartitions {2}")
    @CsvSource({
        "ft_all_adamw_warmup_clip, 3, 2", "ft_all_adamw_warmup_clip, 1, 5",
        "ft_top1_adam_weighted, 2, 3", "ft_top1_adam_weighted, 4, 1",
        "ft_head_only_cls, 3, 4", "ft_head_only_cls, 1, 1"})
    @DisplayName("fit gives PyTorch's loss history and final tensors within 1e-4")
    void fitMatchesPyTorch(String name, int inputPartitions, int numPartitions) throws IOException {
        BertFixture f = BertFixture.open(name);
        BertClassificationModel model = f.stage(f.writeHead(dir)).setNumPartitions(numPartitions)
            .fit(f.frame(spark, inputPartitions));
        double[] history = model.summary().objectiveHistory();
        double[] expected = f.doubles("expected.loss_history");
        assertEquals(f.steps() + 1, history.length, "maxIter steps and the final loss");
        for (int t = 0; t < expected.length; t++) {
            assertEquals(expected[t], history[t], TOLERANCE * Math.abs(expected[t]), name + ": loss before step " + t);
        }
        double expectedFinal = f.doubles("expected.final_loss")[0];
        assertEquals(expectedFinal, history[f.steps()], TOLERANCE * Math.abs(expectedFinal), name + ": final loss");
        Path export = dir.resolve(name + "-out.safetensors");
        model.exportPyTorch(export.toString());
        SafeTensors got = SafeTensors.read(export);
        double keyBiasBound = f.learningRateSum();
        int checked = 0;
        for (String tensor : f.finalNames()) {
            double[] ref = f.doubles("expected.final." + tensor);
            float[] out = got.floats(tensor);
            assertEquals(ref.length, out.length, tensor);
            double maxDiff = 0;
            double maxRef = 0;
            for (int i = 0; i < ref.length; i++) {
                maxDiff = Math.max(maxDiff, Math.abs(out[i] - ref[i]));
                maxRef = Math.max(maxRef, Math.abs(ref[i]));
            }
            if (tensor.endsWith("attention.self.key.bias")) {
                assertTrue(maxDiff <= keyBiasBound + 1e-7, name + ": " + tensor + " moved " + maxDiff
                    + ", more than the learning rate's sum " + keyBiasBound);
            } else {
                assertTrue(maxDiff <= TOLERANCE * maxRef, name + ": " + tensor + " differs by " + maxDiff
                    + " (max |ref| " + maxRef + ")");
            }
            checked++;
        }
        assertEquals(got.names().size(), checked, "the export holds exactly the fixture's tensors: " + got.names());
    }

    @Test
    @DisplayName("1, 3 and 7 input partitions give the same bits (history and every tensor), dropout and sampling on")
    void inputPartitioningChangesNoBit() throws IOException {
        BertFixture f = BertFixture.open("ft_all_adamw_warmup_clip");
        Path head = f.writeHead(dir);
        double[] reference = null;
        SafeTensors referenceTensors = null;
        for (int partitions : new int[] {1, 3, 7}) {
            BertClassificationModel model = f.stage(head).setDropout(0.1).setMiniBatchFraction(0.6).setSeed(5)
                .setNumPartitions(3).fit(f.frame(spark, partitions));
            Path export = dir.resolve("bits-" + partitions + ".safetensors");
            model.exportPyTorch(export.toString());
            SafeTensors tensors = SafeTensors.read(export);
            double[] history = model.summary().objectiveHistory();
            if (reference == null) {
                reference = history;
                referenceTensors = tensors;
                continue;
            }
            assertArrayEquals(reference, history, 0.0, partitions + " input partitions: the history");
            for (String name : referenceTensors.names()) {
                assertArrayEquals(referenceTensors.floats(name), tensors.floats(name), 0f,
                    partitions + " input partitions: " + name);
            }
        }
    }
}

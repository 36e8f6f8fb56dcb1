package io.sparkattention.exec;

import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.CausalAlignment;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.RowMask;
import io.sparkattention.kernel.Workspace;
import io.sparkattention.ml.ScaledDotProductAttention;
import io.sparkattention.nn.Attention;
import io.sparkattention.nn.ScaledDotProduct;
import io.sparkattention.nn.AttentionWeightsMode;
import io.sparkattention.testing.Matrices;
import io.sparkattention.testing.NaiveAttention;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;

import static io.sparkattention.testing.Close.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every strategy on a real multi-process cluster ({@code local-cluster[2,1,1024]}: two executor
 * JVMs): the numbers equal the float64 reference within float32 reordering, batch equals this JVM's
 * own (local) computation bitwise, and head and sequence give bitwise the same output whatever the
 * number of unit partitions.
 */
class ClusterStrategiesIT {

    private final SparkSession spark = ClusterTestSession.get();

    @AfterEach
    void resetSettings() {
        spark.conf().unset(ExecutionSettings.SEQUENCE_BLOCK_ROWS);
        spark.conf().unset(ExecutionSettings.UNIT_PARTITIONS);
    }

    @ParameterizedTest
    @ValueSource(strings = {"batch", "head", "sequence"})
    @DisplayName("random GQA rows with padding, mask, bias, bottom-right causal window, on executors")
    void strategyOnExecutorsMatchesLocal(String strategy) {
        AttentionSpec spec = AttentionSpec.defaults().withCausal(true).withAlignment(CausalAlignment.BOTTOM_RIGHT)
            .withWindow(48, AttentionSpec.UNBOUNDED).withScale(0.3f).withBlocks(16, 16);
        int heads = 4, kvHeads = 2, d = 8, dv = 6;
        RandomRows data = new RandomRows(strategy.hashCode(), spec, heads, kvHeads, d, dv, 12,
            new int[] {1, 7, 40, 90}, true);
        spark.conf().set(ExecutionSettings.SEQUENCE_BLOCK_ROWS, "32");
        boolean weights = !strategy.equals("sequence");
        List<float[]> first = null;
        for (String unitPartitions : new String[] {"3", "8"}) {
            spark.conf().set(ExecutionSettings.UNIT_PARTITIONS, unitPartitions);
            ScaledDotProductAttention sdpa = new ScaledDotProductAttention().setQueryCol("q").setKeyCol("k")
                .setValueCol("v").setKeyLengthCol("len").setAttnMaskCol("mask").setAttnBiasCol("bias")
                .setOutputCol("out").setNumHeads(heads).setNumKvHeads(kvHeads).setCausal(true)
                .setCausalAlignment("bottom_right").setWindowLeft(48).setScale(0.3).setBlockSize(16)
                .setStrategy(strategy);
            if (weights) {
                sdpa.setWeightsCol("w").setAverageWeights(false);
            }
            List<Row> out = sdpa.transform(data.frame(spark, 3)).orderBy("id").collectAsList();
            assertEquals(data.rows.size(), out.size());
            List<float[]> outputs = new ArrayList<>();
            for (int r = 0; r < out.size(); r++) {
                Row row = out.get(r);
                float[] got = Matrices.flatten(row.getList(row.fieldIndex("out")));
                outputs.add(got);
                NaiveAttention.Result ref = data.references.get(r);
                assertClose(strategy + " row " + r, ref.out, got);
                if (weights) {
                    assertClose(strategy + " row " + r + " weights", ref.weights,
                        Matrices.flatten3(row.getList(row.fieldIndex("w"))));
                }
                if (strategy.equals("batch")) {
                    assertArrayEquals(local(spec, data, r), got, "row " + r + ": executors compute what local mode does");
                }
            }
            if (first == null) {
                first = outputs;
            } else {
                for (int r = 0; r < outputs.size(); r++) {
                    assertArrayEquals(first.get(r), outputs.get(r), "row " + r + " with other unit partitions");
                }
            }
        }
    }

    /** Row {@code r} computed in this JVM, the way the batch strategy computes it in a task. */
    private static float[] local(AttentionSpec spec, RandomRows data, int r) {
        Row row = data.rows.get(r);
        AttentionShape s = data.shapes.get(r);
        float[] q = flat(row.get(1)), k = flat(row.get(2)), v = flat(row.get(3));
        RowMask mask = RowMask.keyLength(row.isNullAt(4) ? -1 : row.getInt(4))
            .withAllowed(flatBooleans((boolean[][]) row.get(5))).withBias(flat3((float[][][]) row.get(6)));
        ScaledDotProduct layer = new ScaledDotProduct(new FlashAttention(spec), data.heads, data.kvHeads,
            data.heads * data.headDim, data.kvHeads * data.headDim, data.kvHeads * data.valueDim);
        Attention.Output out = layer.forward(q, s.queryLength(), k, v, s.keyLength(), mask, AttentionWeightsMode.NONE,
            new Workspace());
        return out.values();
    }

    private static float[] flat(Object matrix) {
        float[][] m = (float[][]) matrix;
        int cols = m.length == 0 ? 0 : m[0].length;
        float[] out = new float[m.length * cols];
        for (int i = 0; i < m.length; i++) {
            System.arraycopy(m[i], 0, out, i * cols, cols);
        }
        return out;
    }

    private static float[] flat3(float[][][] planes) {
        List<float[]> parts = new ArrayList<>();
        int total = 0;
        for (float[][] p : planes) {
            float[] f = flat(p);
            parts.add(f);
            total += f.length;
        }
        float[] out = new float[total];
        int at = 0;
        for (float[] f : parts) {
            System.arraycopy(f, 0, out, at, f.length);
            at += f.length;
        }
        return out;
    }

    private static boolean[] flatBooleans(boolean[][] m) {
        int cols = m.length == 0 ? 0 : m[0].length;
        boolean[] out = new boolean[m.length * cols];
        for (int i = 0; i < m.length; i++) {
            System.arraycopy(m[i], 0, out, i * cols, cols);
        }
        return out;
    }
}

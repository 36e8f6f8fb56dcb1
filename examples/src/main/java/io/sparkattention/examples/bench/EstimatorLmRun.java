package io.sparkattention.examples.bench;

import io.sparkattention.gpt.GptDecoder;
import io.sparkattention.gpt.GptWeights;
import io.sparkattention.io.GptModelFiles;
import io.sparkattention.ml.lm.GptLanguageModeler;
import io.sparkattention.ml.training.TrainingListener;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Our side of {@code bench --train-lm} through the library's Estimator: {@link GptLanguageModeler}
 * continuing from the start weights (written as a GPT-2 directory) on the blocks as an ids column,
 * one sequence a row (no packing), every block in every step, dropout 0, on the session's master.
 * The fit's training listener hears each step's loss on the driver when the step's job has ended;
 * there PyTorch takes its step, timed, while Spark is idle (the fine-tuning benchmark's
 * round-robin). A step of ours is the time from the listener's return to its next call: the
 * driver's update, the weights' broadcast and the next step's job.
 */
final class EstimatorLmRun {

    /** Each side's step times and losses, {@code steps} of each. */
    record Steps(double[] oursMs, double[] oursLoss, double[] torchMs, double[] torchLoss) {
    }

    private EstimatorLmRun() {
    }

    /**
     * Fits {@code steps} + 1 steps (the schedule's length is {@code spec.totalSteps()}, which must be
     * {@code steps + 1}), PyTorch's step in each of the first {@code steps} listener calls.
     */
    static Steps run(SparkSession spark, GptWeights start, int[][] ids, TorchLmTrainer.Spec spec, TorchLmTrainer torch,
                     int steps) {
        if (spec.totalSteps() != steps + 1) {
            throw new IllegalArgumentException("the schedule's " + spec.totalSteps() + " steps must be the fit's "
                + (steps + 1));
        }
        Path dir = null;
        try {
            dir = Files.createTempDirectory("bench-train-lm-start");
            GptModelFiles.write(new GptDecoder(start), dir);
            Clock clock = new Clock(torch, ids, steps);
            GptLanguageModeler modeler = new GptLanguageModeler().setIdsCol("input_ids").setPacking(false)
                .setBlockSize(ids[0].length).setInitialWeightsPath(dir.toString()).setSolver(spec.solver())
                .setStepSize(spec.stepSize()).setWeightDecay(spec.weightDecay()).setWarmupSteps(spec.warmupSteps())
                .setSchedule("linear").setMaxGradNorm(spec.maxGradNorm()).setDropout(0.0).setMaxIter(steps + 1)
                .setMiniBatchFraction(1.0).setTol(0.0).setNumPartitions(spark.sparkContext().defaultParallelism())
                .setTrainingListener(clock);
            modeler.fit(blocks(spark, ids));
            if (clock.calls != steps + 2) {
                throw new IllegalStateException("the fit reported " + clock.calls + " losses, expected " + (steps + 2));
            }
            return new Steps(clock.oursMs, clock.oursLoss, clock.torchMs, clock.torchLoss);
        } catch (IOException e) {
            throw new UncheckedIOException("the start model: " + e.getMessage(), e);
        } finally {
            delete(dir);
        }
    }

    /** Times our steps between the listener's calls; PyTorch's step in each of the first {@code steps} calls. */
    private static final class Clock implements TrainingListener {
        private final TorchLmTrainer torch;
        private final int[][] ids;
        private final double[] oursMs, oursLoss, torchMs, torchLoss;
        private long left;
        private int calls;

        Clock(TorchLmTrainer torch, int[][] ids, int steps) {
            this.torch = torch;
            this.ids = ids;
            this.oursMs = new double[steps];
            this.oursLoss = new double[steps];
            this.torchMs = new double[steps];
            this.torchLoss = new double[steps];
        }

        @Override
        public void onLoss(int iteration, double loss) {
            long entered = System.nanoTime();
            // call i ends step i's job: the interval since call i − 1 returned is step i − 1's update and step i's job
            if (calls >= 1 && calls <= oursMs.length) {
                oursMs[calls - 1] = (entered - left) / 1e6;
            }
            if (calls < oursLoss.length) {
                oursLoss[calls] = loss;
            }
            if (torch != null && calls < torchMs.length) {
                long t0 = System.nanoTime();
                torchLoss[calls] = torch.step(ids);
                torchMs[calls] = (System.nanoTime() - t0) / 1e6;
            }
            calls++;
            left = System.nanoTime();
        }
    }

    private static Dataset<Row> blocks(SparkSession spark, int[][] ids) {
        StructType schema = new StructType()
            .add("input_ids", DataTypes.createArrayType(DataTypes.IntegerType, false), false);
        List<Row> rows = new ArrayList<>();
        for (int[] block : ids) {
            rows.add(RowFactory.create((Object) Arrays.stream(block).boxed().toArray(Integer[]::new)));
        }
        return spark.createDataFrame(rows, schema);
    }

    private static void delete(Path dir) {
        if (dir == null) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException ignored) {
            // a temporary directory; the run's result stands
        }
    }
}

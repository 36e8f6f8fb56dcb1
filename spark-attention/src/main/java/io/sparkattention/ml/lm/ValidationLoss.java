package io.sparkattention.ml.lm;

import io.sparkattention.gpt.TokenBlock;
import io.sparkattention.ml.Shipped;
import io.sparkattention.nn.TrainableNetwork;
import io.sparkattention.nn.TrainingEvaluator;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * A language model's validation loss: the mean loss per predicted token (Σ weighted −log-likelihood
 * / Σ weighted predicted tokens) over a set of sequences at given weights, in evaluation mode (no
 * dropout). One job per evaluation: each task scores its partition's sequences in order, in runs of
 * the network's {@link TrainableNetwork#rowsPerRun()}, and the partitions' sums are added on the
 * driver in partition order, so the loss depends on the weights and the sequences' layout alone.
 */
final class ValidationLoss {

    private final JavaSparkContext sc;
    private final JavaRDD<TokenBlock> sequences;
    private final Broadcast<? extends Shipped<? extends TrainableNetwork<TokenBlock>>> network;

    /**
     * @param sequences the validation sequences, cached
     * @param network   the network, shipped for the fit
     */
    ValidationLoss(JavaSparkContext sc, JavaRDD<TokenBlock> sequences,
                   Broadcast<? extends Shipped<? extends TrainableNetwork<TokenBlock>>> network) {
        this.sc = sc;
        this.sequences = sequences;
        this.network = network;
    }

    /** The loss at {@code theta} (copied: the caller may change it afterwards). */
    double at(float[] theta) {
        Broadcast<float[]> at = sc.broadcast(theta.clone());
        Broadcast<? extends Shipped<? extends TrainableNetwork<TokenBlock>>> shipped = network;
        try {
            List<double[]> parts = sequences.mapPartitions(rows -> List.of(sums(shipped.value().get(), at.value(), rows))
                .iterator()).collect();
            double loss = 0;
            double weight = 0;
            for (double[] part : parts) {
                loss += part[0];
                weight += part[1];
            }
            return loss / weight;
        } finally {
            at.destroy();
        }
    }

    /** {Σ weighted losses, Σ weights} of a partition's sequences, in runs of the network's size. */
    private static double[] sums(TrainableNetwork<TokenBlock> network, float[] theta, Iterator<TokenBlock> rows) {
        TrainingEvaluator<TokenBlock> evaluator = network.bind(theta, false, 0, 0);
        int run = network.rowsPerRun();
        List<TokenBlock> pending = new ArrayList<>(run);
        double loss = 0;
        double weight = 0;
        while (rows.hasNext()) {
            TokenBlock row = rows.next();
            pending.add(row);
            weight += evaluator.weight(row);
            if (pending.size() == run || !rows.hasNext()) {
                loss += evaluator.loss(pending);
                pending.clear();
            }
        }
        return new double[] {loss, weight};
    }
}

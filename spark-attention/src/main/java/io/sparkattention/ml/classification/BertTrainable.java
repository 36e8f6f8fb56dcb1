package io.sparkattention.ml.classification;

import io.sparkattention.bert.BertClassifierEvaluator;
import io.sparkattention.bert.BertClassifierNetwork;
import io.sparkattention.bert.BertWeights;
import io.sparkattention.ml.Shipped;
import io.sparkattention.nn.GradientSums;
import io.sparkattention.nn.ParameterTensor;
import io.sparkattention.nn.Softmax;
import io.sparkattention.nn.TrainableNetwork;
import io.sparkattention.nn.TrainingEvaluator;
import org.apache.spark.broadcast.Broadcast;

import java.lang.ref.SoftReference;
import java.util.List;

/**
 * A {@link BertClassifierNetwork} as the training engine's {@link TrainableNetwork}, over
 * {@link BertTrainingRow}s: an adapter around today's row-by-row {@link BertClassifierEvaluator}.
 * It travels as a handle to the network's broadcast (the weights are shipped once, for the rows'
 * layout and the steps alike). Its evaluator adds a run's rows one by one into the network's
 * float32 pending sums and, at a flush, moves them into a per-thread float64 vector and from there
 * into the engine's {@link GradientSums}: the word embedding as the rows the run's ids touched, the
 * rest dense. The bits are those of the network's own float64 flush.
 */
final class BertTrainable implements TrainableNetwork<BertTrainingRow> {

    private static final long serialVersionUID = 1L;

    /** Each thread's float64 flush vector (parameterCount values, zero between flushes), kept while memory allows. */
    private static final ThreadLocal<SoftReference<double[]>> FLUSH = new ThreadLocal<>();

    private final Broadcast<Shipped<BertClassifierNetwork>> network;

    BertTrainable(Broadcast<Shipped<BertClassifierNetwork>> network) {
        this.network = network;
    }

    /** The network, decoded once per executor. */
    BertClassifierNetwork network() {
        return network.value().get();
    }

    @Override
    public List<ParameterTensor> parameters() {
        return network().parameters();
    }

    @Override
    public int parameterCount() {
        return network().parameterCount();
    }

    /** The word embedding, when the embeddings train. */
    @Override
    public int[] rowSparseTensors() {
        List<ParameterTensor> tensors = parameters();
        for (int i = 0; i < tensors.size(); i++) {
            if (tensors.get(i).name().equals(BertWeights.WORD_EMBEDDINGS)) {
                return new int[] {i};
            }
        }
        return new int[0];
    }

    @Override
    public TrainingEvaluator<BertTrainingRow> bind(float[] theta, boolean training, long seed, long step) {
        BertClassifierNetwork n = network();
        return new Evaluator(n, training ? n.bind(theta, seed, step) : n.bind(theta), rowSparseTensors().length > 0);
    }

    /** The adapter's evaluator: one per thread and step, as the network's. */
    private static final class Evaluator implements TrainingEvaluator<BertTrainingRow> {

        private final BertClassifierEvaluator bound;
        private final int count;
        private final int wordFrom;
        private final int wordTo;
        private final int width;
        /** The word-embedding rows the pending rows touched, each once, and a mark per vocabulary id. */
        private final int[] touched;
        private final boolean[] marked;
        private int touchedCount;
        private int pendingRows;
        private final float[] logits;

        Evaluator(BertClassifierNetwork n, BertClassifierEvaluator bound, boolean sparseWords) {
            this.bound = bound;
            this.count = n.parameterCount();
            this.width = n.config().hidden();
            this.logits = new float[n.numClasses()];
            if (sparseWords) {
                ParameterTensor words = n.parameter(BertWeights.WORD_EMBEDDINGS);
                wordFrom = words.offset();
                wordTo = words.offset() + words.size();
                touched = new int[n.config().vocabSize()];
                marked = new boolean[n.config().vocabSize()];
            } else {
                wordFrom = count;
                wordTo = count;
                touched = null;
                marked = null;
            }
        }

        @Override
        public double weight(BertTrainingRow row) {
            return row.weight;
        }

        @Override
        public double add(List<BertTrainingRow> rows) {
            double loss = 0;
            for (BertTrainingRow r : rows) {
                try {
                    loss += bound.add(r.ids, r.frozen, r.key, r.label, r.weight);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("row " + r.key + ": " + e.getMessage(), e);
                }
                if (r.weight > 0) {
                    pendingRows++;
                    if (touched != null) {
                        for (int id : r.ids) {
                            if (!marked[id]) {
                                marked[id] = true;
                                touched[touchedCount++] = id;
                            }
                        }
                    }
                }
            }
            return loss;
        }

        @Override
        public double loss(List<BertTrainingRow> rows) {
            double loss = 0;
            for (BertTrainingRow r : rows) {
                bound.logits(r.ids, r.frozen, logits);
                loss += r.weight * Softmax.crossEntropy(logits, r.label);
            }
            return loss;
        }

        @Override
        public void flushInto(GradientSums sums) {
            if (pendingRows == 0) {
                return;
            }
            double[] flat = flushVector(count);
            bound.flushInto(flat);
            sums.addAndClear(flat, 0, wordFrom);
            sums.addAndClear(flat, wordTo, count);
            for (int i = 0; i < touchedCount; i++) {
                sums.addRowAndClear(0, touched[i], flat);
                marked[touched[i]] = false;
            }
            touchedCount = 0;
            pendingRows = 0;
        }

        @Override
        public void discardPending() {
            bound.discardPending();
            for (int i = 0; i < touchedCount; i++) {
                marked[touched[i]] = false;
            }
            touchedCount = 0;
            pendingRows = 0;
        }

        private static double[] flushVector(int count) {
            SoftReference<double[]> ref = FLUSH.get();
            double[] flat = ref != null ? ref.get() : null;
            if (flat == null || flat.length != count) {
                flat = new double[count];
                FLUSH.set(new SoftReference<>(flat));
            }
            return flat;
        }
    }
}

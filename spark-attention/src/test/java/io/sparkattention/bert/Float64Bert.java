package io.sparkattention.bert;

import io.sparkattention.nn.Pooling;

/**
 * A float64 BERT forward from {@link BertWeights}, written from the definition (the reference of
 * minilm_reference.py in Java, {@link Float64BertClassifier#states}), for sequences the fixtures do
 * not cover.
 */
final class Float64Bert {

    private Float64Bert() {
    }

    /** The last hidden state, L×E. */
    static double[] forward(BertWeights w, int[] ids) {
        return new Float64BertClassifier(w.config(), w.tensors(), Pooling.MEAN).states(ids, 0, 0, 0, 0, 0);
    }

    /** The largest per-token relative L2 error of float states against double ones. */
    static double worstRelative(float[] states, double[] exact, int E) {
        double worst = 0;
        for (int i = 0; i < exact.length / E; i++) {
            double diff = 0, norm = 0;
            for (int j = 0; j < E; j++) {
                diff += (states[i * E + j] - exact[i * E + j]) * (states[i * E + j] - exact[i * E + j]);
                norm += exact[i * E + j] * exact[i * E + j];
            }
            worst = Math.max(worst, Math.sqrt(diff / norm));
        }
        return worst;
    }
}

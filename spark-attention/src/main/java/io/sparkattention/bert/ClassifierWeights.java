package io.sparkattention.bert;

import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.nn.ClassifierHead;
import io.sparkattention.nn.ParameterTensor;

import java.util.Arrays;

/**
 * The trainable part of a {@link BertClassifierNetwork} at one parameter vector, prepared once for
 * this JVM's kernels: the trainable tensors copied out of the vector, the embeddings (when they
 * train) and the trainable {@link BertLayer}s with their packed and transposed projections, the
 * head's weight and bias. Shared by every evaluator bound to a vector of the same values (the
 * threads and tasks of a step, {@link BertClassifierNetwork#prepared}), which would otherwise each
 * copy and pack them (for a fine-tuned MiniLM about 175 MB a task a step). Immutable and
 * thread-safe.
 */
final class ClassifierWeights {

    /** The embeddings when they train, else null. */
    final BertEmbeddings embeddings;
    final BertLayer[] layers;
    final ClassifierHead head;
    /** The encoder's tensors at the vector (the frozen ones shared with the network's). */
    private final BertWeights encoder;

    ClassifierWeights(BertClassifierNetwork net, float[] theta) {
        BertConfig c = net.config();
        this.encoder = net.encoderWeights(theta);
        FlashAttention kernel = new FlashAttention(AttentionSpec.defaults());
        this.embeddings = net.embeddingsTrainable() ? new BertEmbeddings(encoder, offsets(net,
            BertWeights.WORD_EMBEDDINGS, BertWeights.POSITION_EMBEDDINGS, BertWeights.TOKEN_TYPE_EMBEDDINGS,
            BertWeights.EMBEDDINGS_NORM_WEIGHT, BertWeights.EMBEDDINGS_NORM_BIAS)) : null;
        int first = net.firstTrainableLayer();
        this.layers = new BertLayer[c.layers() - first];
        String[] names = BertWeights.shapes(c).keySet().toArray(new String[0]);
        for (int t = 0; t < layers.length; t++) {
            int n = first + t;
            String prefix = BertWeights.layerPrefix(n);
            String[] layerNames = Arrays.stream(names).filter(s -> s.startsWith(prefix)).toArray(String[]::new);
            layers[t] = new BertLayer(c, encoder.layer(n), kernel, n, offsets(net, layerNames));
        }
        this.head = new ClassifierHead(net.settings().pooling(), theta,
            net.parameter(BertClassifierNetwork.CLASSIFIER_WEIGHT), net.parameter(BertClassifierNetwork.CLASSIFIER_BIAS));
    }

    private static int[] offsets(BertClassifierNetwork net, String... names) {
        int[] o = new int[names.length];
        for (int i = 0; i < names.length; i++) {
            o[i] = net.parameter(names[i]).offset();
        }
        return o;
    }

    /** Whether these were prepared from {@code theta}'s values, compared bit for bit (a vector updated in place is not). */
    boolean holds(BertClassifierNetwork net, float[] theta) {
        for (ParameterTensor t : net.parameters()) {
            if (t.name().equals(BertClassifierNetwork.CLASSIFIER_WEIGHT) || t.name().equals(BertClassifierNetwork.CLASSIFIER_BIAS)) {
                continue;
            }
            if (!Arrays.equals(encoder.tensor(t.name()), 0, t.size(), theta, t.offset(), t.offset() + t.size())) {
                return false;
            }
        }
        return head.holds(theta);
    }
}

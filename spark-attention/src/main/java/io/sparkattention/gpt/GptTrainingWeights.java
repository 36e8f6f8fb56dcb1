package io.sparkattention.gpt;

import io.sparkattention.kernel.AttentionPath;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.LinearKernel;
import io.sparkattention.kernel.LinearWeight;
import io.sparkattention.nn.ParameterTensor;

import java.util.Arrays;

/**
 * A {@link GptTrainingNetwork}'s weights at one parameter vector, prepared once for this JVM's
 * projection kernel and shared by every evaluator bound to a vector of the same values (the
 * threads and tasks of one step): the tensors copied out of the vector, the
 * {@link GptTrainingBlock}s, the tied head for the forward and (on the first backward) for
 * {@code dz·wte}. Immutable after construction but for that lazily prepared weight, which racing
 * threads may each prepare once (equal values; the last one written is kept). Thread-safe.
 */
final class GptTrainingWeights {

    final GptConfig config;
    final GptWeights weights;
    final float[] tokenEmbedding;
    final float[] positionEmbedding;
    final float[] finalNormWeight;
    final float[] finalNormBias;
    final int wteOffset;
    final int wpeOffset;
    final int finalNormWeightOffset;
    final int finalNormBiasOffset;
    final GptTrainingBlock[] blocks;
    final LinearKernel linear;
    /** The tied head, {@code z = h·wteᵀ}. */
    final LinearWeight head;
    /** wte prepared for {@code dz·wte}, on first use. */
    private volatile LinearWeight headInput;

    GptTrainingWeights(GptTrainingNetwork net, float[] theta) {
        this(net, theta, trainingKernel(GptBlock.causalKernel()));
    }

    /** The weights with the blocks' attention on {@code kernel} (causal, bottom-right; side-by-side checks). */
    GptTrainingWeights(GptTrainingNetwork net, float[] theta, FlashAttention kernel) {
        this.config = net.config();
        this.weights = net.weights(theta);
        this.linear = net.linearKernel();
        this.tokenEmbedding = weights.tensor(GptWeights.TOKEN_EMBEDDING);
        this.positionEmbedding = weights.tensor(GptWeights.POSITION_EMBEDDING);
        this.finalNormWeight = weights.tensor(GptWeights.FINAL_NORM_WEIGHT);
        this.finalNormBias = weights.tensor(GptWeights.FINAL_NORM_BIAS);
        this.wteOffset = net.parameter(GptWeights.TOKEN_EMBEDDING).offset();
        this.wpeOffset = net.parameter(GptWeights.POSITION_EMBEDDING).offset();
        this.finalNormWeightOffset = net.parameter(GptWeights.FINAL_NORM_WEIGHT).offset();
        this.finalNormBiasOffset = net.parameter(GptWeights.FINAL_NORM_BIAS).offset();
        this.blocks = new GptTrainingBlock[config.layers()];
        for (int n = 0; n < blocks.length; n++) {
            blocks[n] = new GptTrainingBlock(config, weights.layer(n), net.layerOffsets(n), kernel, linear);
        }
        this.head = LinearWeight.of(linear, tokenEmbedding, config.vocabSize(), config.hidden(), null);
    }

    /**
     * The causal kernel the training passes run: with the JVM's {@link AttentionPath#AUTO}, direct up
     * to {@link AttentionPath#CAUSAL_DIRECT_MAX_LENGTH} tokens a block rather than 128 (the byte
     * model's blocks of 256 measured so at a third of the tiled forward's time and 0.7 of its
     * backward's; longer blocks stay tiled, so their memory stays linear in L); a path forced by
     * the JVM's property is kept. The decoder's inference keeps {@code AUTO}: for blocks of 129 to
     * 256 tokens the evaluation loss agrees with {@link GptDecoder#tokenLogProbs} within float32
     * rounding rather than bit for bit.
     */
    static FlashAttention trainingKernel(FlashAttention causal) {
        return causal.path() == AttentionPath.AUTO ? causal.withPath(AttentionPath.AUTO_CAUSAL) : causal;
    }

    /** Whether these are the weights of {@code theta}: every tensor's bits equal (layout as {@code net}'s). */
    boolean holds(GptTrainingNetwork net, float[] theta) {
        for (ParameterTensor t : net.parameters()) {
            if (!Arrays.equals(weights.tensor(t.name()), 0, t.size(), theta, t.offset(), t.offset() + t.size())) {
                return false;
            }
        }
        return true;
    }

    /** wte prepared as the weight of {@code dz·wte} (the head's input gradient). */
    LinearWeight headInput() {
        LinearWeight w = headInput;
        if (w == null) {
            w = LinearWeight.transposeOf(linear, tokenEmbedding, config.vocabSize(), config.hidden());
            headInput = w;
        }
        return w;
    }

    /** Whether the projections compute each row independently of the others, bit for bit. */
    boolean rowsIndependent() {
        return head.rowsIndependent();
    }
}

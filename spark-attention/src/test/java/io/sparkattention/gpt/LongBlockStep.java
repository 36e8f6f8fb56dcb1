package io.sparkattention.gpt;

import io.sparkattention.nn.GradientLayout;
import io.sparkattention.nn.GradientSums;
import io.sparkattention.nn.TrainingEvaluator;

import java.util.List;
import java.util.Random;

/**
 * One training step's loss and gradient (dropout on) of a single block of L tokens on a GPT of
 * {@code layers} × {@code width} with {@code heads} heads and a byte vocabulary, run in a child JVM
 * by {@link GptLongBlockMemoryTest} under a chosen heap. Prints the loss per token, the gradient's
 * norm and the heap in use after a full collection with the step's evaluator still held.
 *
 * <p>Arguments: layers width heads L.
 */
public final class LongBlockStep {

    private LongBlockStep() {
    }

    public static void main(String[] args) {
        int layers = Integer.parseInt(args[0]), E = Integer.parseInt(args[1]), H = Integer.parseInt(args[2]);
        int L = Integer.parseInt(args[3]);
        GptConfig c = new GptConfig(layers, E, H, L, 256, 4 * E, 1e-5f, GptConfig.GELU_NEW, true);
        GptTrainingNetwork net = new GptTrainingNetwork(c, 0.1);
        float[] theta = net.initialParameters(1);
        int[] ids = new int[L];
        Random r = new Random(2);
        for (int i = 0; i < L; i++) {
            ids[i] = r.nextInt(256);
        }
        TokenBlock block = new TokenBlock(ids, 1, 0);
        TrainingEvaluator<TokenBlock> ev = net.bind(theta, true, 3, 0);
        double loss = ev.add(List.of(block)) / ev.weight(block);
        System.gc();  // what the step holds: the evaluator's records and pending sums, the prepared weights
        Runtime rt = Runtime.getRuntime();
        long live = rt.totalMemory() - rt.freeMemory();
        GradientSums sums = new GradientSums(GradientLayout.of(net));
        ev.flushInto(sums);
        double sq = 0;
        for (double g : sums.toFlat()) {
            sq += g * g;
        }
        System.out.println("loss_per_token=" + loss + " grad_norm=" + Math.sqrt(sq) + " live_heap_mib=" + (live >> 20));
    }
}

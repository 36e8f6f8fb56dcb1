package io.sparkattention.gpt;

import io.sparkattention.nn.GradientLayout;
import io.sparkattention.nn.GradientSums;
import io.sparkattention.nn.ParameterTensor;
import io.sparkattention.nn.TrainingEvaluator;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link GptTrainingNetwork} as the training engine sees it: the flat vector in Hugging Face's
 * GPT-2 names with GPT-2's decay groups, conversions to and from {@link GptWeights}, the
 * evaluation loss equal to the decoder's scoring, a run's blocks stacked with each block's loss
 * its own, pending sums flushed and discarded, dropout keyed by (seed, step, block key), and
 * bad blocks refused by their key before anything is added.
 */
class GptTrainingNetworkTest {

    private static final GptConfig CONFIG = new GptConfig(2, 16, 4, 40, 31, 24, 1e-5f, GptConfig.GELU_NEW, true);

    private static List<TokenBlock> blocks() {
        return GptTrainingGradientTest.randomBlocks(new int[] {12, 1, 40, 5, 23}, new double[] {1, 1, 0.5, 2, 1},
            CONFIG.vocabSize(), 4);
    }

    @Test
    void theFlatVectorIsGpt2sStateDictWithDecayOnTwoDimensionalTensors() {
        GptTrainingNetwork net = new GptTrainingNetwork(CONFIG, 0.1);
        List<String> names = new ArrayList<>(GptWeights.shapes(CONFIG).keySet());
        assertEquals(names, net.parameters().stream().map(ParameterTensor::name).toList());
        int offset = 0;
        for (ParameterTensor t : net.parameters()) {
            assertEquals(offset, t.offset(), t.name());
            assertArrayEquals(Arrays.stream(GptWeights.shapes(CONFIG).get(t.name())).mapToInt(v -> (int) v).toArray(),
                t.shape(), t.name());
            assertEquals(t.shape().length == 2, t.decayed(), t.name());
            offset += t.size();
        }
        assertEquals(offset, net.parameterCount());
        assertTrue(net.parameter("ln_f.weight").shape().length == 1 && !net.parameter("h.1.ln_2.weight").decayed());
        assertTrue(net.parameter("wte.weight").decayed() && net.parameter("h.0.mlp.c_proj.weight").decayed());
        assertArrayEquals(new int[] {1}, net.rowSparseTensors());
        assertEquals(GptWeights.POSITION_EMBEDDING, net.parameters().get(1).name());
    }

    @Test
    void weightsGoToTheFlatVectorAndBackUnchanged() {
        GptTrainingNetwork net = new GptTrainingNetwork(CONFIG, 0);
        GptWeights w = Float64Gpt.random(CONFIG, 3);
        float[] theta = net.flatten(w);
        GptWeights back = net.weights(theta);
        for (Map.Entry<String, float[]> e : w.stateDict().entrySet()) {
            assertArrayEquals(e.getValue(), back.tensor(e.getKey()), e.getKey());
        }
        GptConfig other = new GptConfig(1, 16, 4, 40, 31, 24, 1e-5f, GptConfig.GELU_NEW, true);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> net.flatten(Float64Gpt.random(other, 3)));
        assertTrue(e.getMessage().contains("weights of"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> net.weights(new float[3]));
        assertTrue(e.getMessage().contains("3 values, expected " + net.parameterCount()), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> net.bind(new float[3], true, 0, 0));
        assertTrue(e.getMessage().contains("3 values"), e.getMessage());
    }

    @Test
    void aSerializedNetworkBindsToTheSameLosses() throws Exception {
        GptTrainingNetwork net = new GptTrainingNetwork(CONFIG, 0.2);
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
            out.writeObject(net);
        }
        GptTrainingNetwork copy;
        try (java.io.ObjectInputStream in = new java.io.ObjectInputStream(
            new java.io.ByteArrayInputStream(bytes.toByteArray()))) {
            copy = (GptTrainingNetwork) in.readObject();
        }
        float[] theta = net.initialParameters(4);
        assertEquals(net.bind(theta, true, 2, 5).add(blocks()), copy.bind(theta, true, 2, 5).add(blocks()), 0.0);
        assertEquals(net.parameters().stream().map(ParameterTensor::decayed).toList(),
            copy.parameters().stream().map(ParameterTensor::decayed).toList());
    }

    @Test
    void bindsOfTheSameValuesShareTheirPreparedWeightsAndAChangedVectorIsPreparedAnew() {
        GptTrainingNetwork net = new GptTrainingNetwork(CONFIG, 0);
        float[] theta = net.initialParameters(9);
        GptTrainingWeights first = net.prepared(theta);
        assertSame(first, net.prepared(theta.clone()), "the same values: the same prepared weights");
        double before = net.bind(theta, false, 0, 0).loss(blocks());
        theta[net.parameter("h.1.mlp.c_fc.weight").offset() + 3] += 0.5f;  // in place, as an optimiser steps
        assertNotSame(first, net.prepared(theta));
        double after = net.bind(theta, false, 0, 0).loss(blocks());
        assertNotEquals(before, after);
        assertEquals(new GptTrainingNetwork(CONFIG, 0).bind(theta, false, 0, 0).loss(blocks()), after, 0.0,
            "the loss of the values bound, not of the ones prepared before");
    }

    @Test
    void untiedHeadsAndDropoutOutOfRangeAreRefused() {
        GptConfig untied = new GptConfig(1, 8, 2, 8, 11, 16, 1e-5f, GptConfig.GELU_NEW, false);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new GptTrainingNetwork(untied, 0))
            .getMessage().contains("tied"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new GptTrainingNetwork(CONFIG, 1.0))
            .getMessage().contains("dropout must be in [0, 1)"));
    }

    @Test
    void theEvaluationLossIsMinusTheDecodersLogLikelihoodBitForBit() {
        GptTrainingNetwork net = new GptTrainingNetwork(CONFIG, 0.2);
        float[] theta = net.flatten(Float64Gpt.random(CONFIG, 5));
        GptDecoder decoder = new GptDecoder(net.weights(theta));
        TrainingEvaluator<TokenBlock> eval = net.bind(theta, false, 1, 1);
        for (TokenBlock b : blocks()) {
            double logLikelihood = 0;
            for (double lp : decoder.tokenLogProbs(b.ids(), 1)) {
                logLikelihood += lp;  // in token order, as the evaluator sums
            }
            double expected = -logLikelihood * b.weight();
            assertEquals(expected, eval.loss(List.of(b)), 0.0, "block " + b.key());
            assertEquals(b.weight() * (b.ids().length - 1), eval.weight(b), 0.0);
        }
        TrainingEvaluator<TokenBlock> noDropout = new GptTrainingNetwork(CONFIG, 0).bind(theta, true, 1, 1);
        assertEquals(eval.loss(blocks()), noDropout.add(blocks()), 0.0, "p = 0: training is evaluation");
    }

    @Test
    void stackedBlocksKeepTheirOwnLossesAndSumTheirGradients() {
        GptTrainingNetwork net = new GptTrainingNetwork(CONFIG, 0.1);
        float[] theta = net.flatten(Float64Gpt.random(CONFIG, 6));
        TrainingEvaluator<TokenBlock> each = net.bind(theta, true, 9, 4);
        TrainingEvaluator<TokenBlock> run = net.bind(theta, true, 9, 4);
        GradientSums one = new GradientSums(GradientLayout.of(net));
        GradientSums all = new GradientSums(GradientLayout.of(net));
        double sum = 0;
        for (TokenBlock b : blocks()) {
            sum += each.add(List.of(b));
            each.flushInto(one);
        }
        double stacked = run.add(blocks());
        run.flushInto(all);
        assertEquals(sum, stacked, 0.0, "each block's loss is its own, stacked or alone");
        double[] a = one.toFlat(), b = all.toFlat();
        double scale = Arrays.stream(a).map(Math::abs).max().orElse(0);
        for (int i = 0; i < a.length; i++) {
            assertEquals(a[i], b[i], 1e-5 * scale, "parameter " + i);
        }
        assertEquals(40, all.touchedRows(0), "wpe: the rows of the longest block's positions");

        GradientSums empty = new GradientSums(GradientLayout.of(net));
        run.flushInto(empty);
        assertTrue(Arrays.stream(empty.toFlat()).allMatch(g -> g == 0), "a flush clears what it flushed");
        run.add(blocks());
        run.discardPending();
        run.flushInto(empty);
        assertTrue(Arrays.stream(empty.toFlat()).allMatch(g -> g == 0), "discarded sums never reach a flush");
    }

    @Test
    void aRunLongerThanOnePassSumsItsBlocksInOrder() {
        GptConfig c = new GptConfig(1, 16, 2, 1000, 29, 32, 1e-5f, GptConfig.GELU_NEW, true);
        GptTrainingNetwork net = new GptTrainingNetwork(c, 0.1);
        float[] theta = net.initialParameters(2);
        List<TokenBlock> run = GptTrainingGradientTest.randomBlocks(new int[] {1000, 700, 900, 3}, new double[] {1, 2,
            0.5, 1}, c.vocabSize(), 5);
        assertTrue(1000 + 700 + 900 > GptTrainingEvaluator.STACK_TOKENS, "more than one pass");
        TrainingEvaluator<TokenBlock> each = net.bind(theta, true, 1, 1);
        double sum = 0;
        for (TokenBlock b : run) {
            sum += each.add(List.of(b));
        }
        assertEquals(sum, net.bind(theta, true, 1, 1).add(run), 0.0);
        assertEquals(net.bind(theta, false, 0, 0).loss(run), net.bind(theta, true, 1, 1).loss(run), 0.0);
    }

    @Test
    void dropoutIsKeyedBySeedStepAndBlockOnly() {
        GptTrainingNetwork net = new GptTrainingNetwork(CONFIG, 0.3);
        float[] theta = net.flatten(Float64Gpt.random(CONFIG, 7));
        List<TokenBlock> blocks = blocks();
        double a = net.bind(theta, true, 5, 2).add(blocks);
        double b = net.bind(theta, true, 5, 2).add(blocks);
        List<TokenBlock> reversed = new ArrayList<>(blocks);
        java.util.Collections.reverse(reversed);
        double perBlockReversed = 0;
        TrainingEvaluator<TokenBlock> ev = net.bind(theta, true, 5, 2);
        for (TokenBlock blk : reversed) {
            perBlockReversed += ev.add(List.of(blk));
        }
        assertEquals(a, b, 0.0, "the same (seed, step, keys): the same bits");
        assertEquals(a, perBlockReversed, 1e-12 * a, "a block's masks do not depend on its run or order");
        assertNotEquals(a, net.bind(theta, true, 5, 3).add(blocks), "another step draws other masks");
        assertNotEquals(a, net.bind(theta, true, 6, 2).add(blocks), "another seed draws other masks");
        assertNotEquals(a, net.bind(theta, false, 5, 2).loss(blocks), "evaluation has no dropout");
        assertEquals(net.bind(theta, true, 5, 2).loss(blocks), net.bind(theta, false, 0, 0).loss(blocks), 0.0,
            "loss() is evaluation mode in a training binding too");
    }

    @Test
    void badBlocksAreRefusedByTheirKeyBeforeAnythingIsAdded() {
        GptTrainingNetwork net = new GptTrainingNetwork(CONFIG, 0);
        float[] theta = net.flatten(Float64Gpt.random(CONFIG, 8));
        TrainingEvaluator<TokenBlock> ev = net.bind(theta, true, 0, 0);
        List<TokenBlock> good = blocks();
        List<TokenBlock> withBadId = new ArrayList<>(good);
        withBadId.add(new TokenBlock(new int[] {1, 31, 2}, 1, 77));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ev.add(withBadId));
        assertEquals("block 77: token id 31 at position 1 is outside [0, 31)", e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
            () -> ev.add(List.of(new TokenBlock(new int[41], 1, 78))));
        assertTrue(e.getMessage().startsWith("block 78 has 41 tokens, expected 1 to 40"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
            () -> ev.loss(List.of(new TokenBlock(new int[0], 1, 79))));
        assertTrue(e.getMessage().startsWith("block 79 has 0 tokens"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
            () -> ev.add(List.of(new TokenBlock(new int[] {1, 2}, Double.NaN, 80))));
        assertTrue(e.getMessage().contains("block 80: weight must be finite and >= 0"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ev.weight(new TokenBlock(new int[0], 1, 83)));
        assertTrue(e.getMessage().startsWith("block 83 has 0 tokens"), e.getMessage());
        GradientSums sums = new GradientSums(GradientLayout.of(net));
        ev.flushInto(sums);
        assertTrue(Arrays.stream(sums.toFlat()).allMatch(g -> g == 0), "a refused run adds nothing");
        assertEquals(0.0, ev.add(List.of(new TokenBlock(new int[] {3}, 1, 81), new TokenBlock(new int[] {3, 4}, 0, 82))),
            "a one-token block and a weight-0 block predict nothing");
    }

    @Test
    void aReleasedEvaluatorsBuffersServeTheThreadsNextEvaluatorWithTheBitsOfNewOnes() {
        GptTrainingNetwork net = new GptTrainingNetwork(CONFIG, 0.3);
        float[] theta = net.flatten(Float64Gpt.random(CONFIG, 9));
        List<TokenBlock> blocks = blocks();
        TrainingEvaluator<TokenBlock> first = net.bind(theta, true, 5, 1);
        first.add(blocks);  // left pending, unflushed, as by a task that failed part-way
        first.release();
        assertThrows(IllegalStateException.class, () -> first.add(blocks), "a released evaluator is not used");
        first.release();
        TrainingEvaluator<TokenBlock> reused = net.bind(theta, true, 5, 2);  // takes first's buffers
        TrainingEvaluator<TokenBlock> fresh = net.bind(theta, true, 5, 2);   // the slot is empty: new buffers
        GradientSums got = new GradientSums(GradientLayout.of(net));
        GradientSums want = new GradientSums(GradientLayout.of(net));
        assertEquals(fresh.add(blocks), reused.add(blocks), 0.0);
        reused.flushInto(got);
        fresh.flushInto(want);
        assertArrayEquals(want.toFlat(), got.toFlat(), 0.0, "the reused buffers carried nothing over");
    }
}

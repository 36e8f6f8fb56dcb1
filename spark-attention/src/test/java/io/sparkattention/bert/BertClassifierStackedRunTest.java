package io.sparkattention.bert;

import io.sparkattention.nn.GradientLayout;
import io.sparkattention.nn.GradientSums;
import io.sparkattention.nn.ParameterTensor;
import io.sparkattention.nn.Pooling;
import io.sparkattention.testing.RandomTensors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;

import static io.sparkattention.bert.BertClassifierGradientTest.randomEncoder;
import static io.sparkattention.bert.BertClassifierGradientTest.randomIds;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A run of rows through {@link BertClassifierEvaluator#add(List)}, stacked through every
 * projection, against the same rows one by one: each row's loss and logits bit for bit its own,
 * the summed gradient within float32 summation, the flushed word embedding as touched rows; and
 * the stacked path's gradient against finite differences of the float64 reference. Awkward runs:
 * L = 1 beside longer rows, rows of different lengths, a weight-0 row, dropout on, runs past one
 * pass's {@value BertClassifierEvaluator#STACK_TOKENS} tokens, every trainable setting.
 */
class BertClassifierStackedRunTest {

    static Stream<Arguments> settings() {
        return Stream.of(
            // name, trainable, pooling, dropout
            Arguments.of("everything, mean, dropout 0.2", -1, Pooling.MEAN, 0.2),
            Arguments.of("top 1 of 2, cls, dropout 0.3", 1, Pooling.FIRST, 0.3),
            Arguments.of("top 2 of 2, mean, no dropout", 2, Pooling.MEAN, 0.0),
            Arguments.of("head only, mean, dropout 0.1", 0, Pooling.MEAN, 0.1));
    }

    private static BertClassifierNetwork network(int trainable, Pooling pooling, double dropout) {
        BertWeights enc = randomEncoder(2, 12, 3, 20, 40, 200, 21);
        RandomTensors rnd = new RandomTensors(8);
        return new BertClassifierNetwork(enc, rnd.normal(3 * 12, 0.3), rnd.normal(3, 0.1),
            new BertClassifierSettings(trainable, pooling, dropout));
    }

    /** Rows of lengths {@code lengths}, keys 100 + r, weights 0.5 + r/2 but row 3's 0. */
    private static List<BertClassifierRow> rows(int... lengths) {
        List<BertClassifierRow> rows = new ArrayList<>();
        for (int r = 0; r < lengths.length; r++) {
            rows.add(BertClassifierRow.of(randomIds(lengths[r], 40, 7L * r + lengths[r]), r % 3,
                r == 3 ? 0.0 : 0.5 + r / 2.0, 100 + r));
        }
        return rows;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("settings")
    void aRunGivesEachRowItsOwnLossAndTheSumOfTheRowsGradients(String name, int trainable, Pooling pooling,
                                                               double dropout) {
        BertClassifierNetwork net = network(trainable, pooling, dropout);
        float[] theta = net.initialParameters();
        // 7 + 1 + 13 + 21 + 2 + 190 + 199 + 170 + 3 = 606 tokens: two passes of STACK_TOKENS.
        List<BertClassifierRow> run = rows(7, 1, 13, 21, 2, 190, 199, 170, 3);
        GradientLayout layout = GradientLayout.of(net);

        assertTrue(606 > BertClassifierEvaluator.STACK_TOKENS);
        BertClassifierEvaluator stacked = net.bind(theta, true, 5, 2);
        double lossStacked = stacked.add(run);
        GradientSums sumsStacked = new GradientSums(layout);
        stacked.flushInto(sumsStacked);

        BertClassifierEvaluator each = net.bind(theta, true, 5, 2);
        GradientSums sumsEach = new GradientSums(layout);
        double lossEach = 0;
        for (BertClassifierRow row : run) {
            lossEach += each.add(List.of(row));
            each.flushInto(sumsEach);
        }
        assertEquals(lossEach, lossStacked, 0.0, name + ": Σ of each row's own loss, bit for bit, in row order");

        double[] a = sumsStacked.toFlat(), b = sumsEach.toFlat();
        double global = Arrays.stream(b).map(Math::abs).max().orElse(0);
        for (ParameterTensor t : net.parameters()) {
            double scale = 0;
            for (int i = t.offset(); i < t.offset() + t.size(); i++) {
                scale = Math.max(scale, Math.abs(b[i]));
            }
            if (t.name().endsWith("attention.self.key.bias")) {
                scale = Math.max(scale, 1e-2 * global);  // true gradient 0: float noise on the layer's scale
            }
            for (int i = t.offset(); i < t.offset() + t.size(); i++) {
                assertEquals(b[i], a[i], 1e-5 * scale + 1e-12, name + ": " + t.name() + "[" + (i - t.offset()) + "]");
            }
        }
        double evalEach = 0;
        BertClassifierEvaluator eval = net.bind(theta);
        for (BertClassifierRow row : run) {
            evalEach += eval.loss(List.of(row));
        }
        assertEquals(evalEach, stacked.loss(run), 0.0, name + ": loss() is eval mode, each row its own");
        assertEquals(evalEach, net.bind(theta).add(run), 0.0, name + ": an eval binding's add drops nothing");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("settings")
    void aStackedPassGivesEachRowTheLogitsItGetsAlone(String name, int trainable, Pooling pooling, double dropout) {
        BertClassifierNetwork net = network(trainable, pooling, dropout);
        ClassifierPasses passes = new ClassifierPasses(net, net.initialParameters());
        assumeTrue(passes.rowsIndependent(), "the projection kernel's rows are not independent: rows run alone");
        List<BertClassifierRow> run = rows(9, 1, 33, 4, 2, 60);
        int[] sites = {DropoutMask.EMBEDDINGS, DropoutMask.site(0, 0), DropoutMask.site(0, 1), DropoutMask.site(0, 2),
            DropoutMask.site(1, 0), DropoutMask.site(1, 1), DropoutMask.site(1, 2), DropoutMask.POOLED};
        RowStack all = new RowStack(2);
        all.set(run, 0, run.size(), 3, 4, Math.max(dropout, 0.1), sites);
        passes.forward(all);
        float[][] together = new float[run.size()][];
        for (int r = 0; r < run.size(); r++) {
            together[r] = passes.logits(r).clone();
        }
        RowStack one = new RowStack(2);
        for (int r = 0; r < run.size(); r++) {
            one.set(run, r, r + 1, 3, 4, Math.max(dropout, 0.1), sites);
            passes.forward(one);
            assertArrayEquals(passes.logits(0), together[r], name + ": row " + r + " stacked with five others");
        }
    }

    @Test
    void theGradientOfAStackedRunMatchesFiniteDifferencesOfFloat64() {
        BertWeights enc = randomEncoder(2, 10, 5, 14, 30, 20, 17);
        RandomTensors rnd = new RandomTensors(3);
        double dropout = 0.25;
        BertClassifierNetwork net = new BertClassifierNetwork(enc, rnd.normal(3 * 10, 0.4), rnd.normal(3, 0.1),
            new BertClassifierSettings(-1, Pooling.MEAN, dropout));
        float[] theta = net.initialParameters();
        List<BertClassifierRow> run = List.of(BertClassifierRow.of(randomIds(1, 30, 1), 2, 1.0, 10),
            BertClassifierRow.of(randomIds(9, 30, 2), 0, 0.7, 11), BertClassifierRow.of(randomIds(5, 30, 3), 1, 1.3, 12));
        long seed = 4, step = 6;
        BertClassifierEvaluator ev = net.bind(theta, true, seed, step);
        double loss = ev.add(run);
        GradientSums sums = new GradientSums(GradientLayout.of(net));
        ev.flushInto(sums);
        double[] grad = sums.toFlat();

        Float64BertClassifier ref = new Float64BertClassifier(enc.config(), net.stateDict(theta), Pooling.MEAN);
        double exact = refLoss(ref, run, dropout, seed, step);
        assertEquals(exact, loss, 2e-5 * Math.abs(exact), "loss");
        Random pick = new Random(9);
        for (ParameterTensor t : net.parameters()) {
            double[] values = ref.p.get(t.name());
            double scale = 0;
            for (int i = 0; i < t.size(); i++) {
                scale = Math.max(scale, Math.abs(grad[t.offset() + i]));
            }
            for (int s = 0; s < 4; s++) {
                int i = coordinate(t, run, 10, pick);
                double keep = values[i], h = 1e-5 * Math.max(1, Math.abs(keep));
                values[i] = keep + h;
                double up = refLoss(ref, run, dropout, seed, step);
                values[i] = keep - h;
                double down = refLoss(ref, run, dropout, seed, step);
                values[i] = keep;
                double fd = (up - down) / (2 * h), got = grad[t.offset() + i];
                double bound = 2e-3 * Math.max(scale, Math.abs(fd)) + 1e-7;
                if (t.name().endsWith("attention.self.key.bias")) {
                    bound = 1e-5;  // true gradient 0: float noise only
                }
                assertTrue(Math.abs(got - fd) <= bound, t.name() + "[" + i + "] = " + got + ", finite differences " + fd
                    + " (tensor scale " + scale + ")");
            }
        }
    }

    private static double refLoss(Float64BertClassifier ref, List<BertClassifierRow> run, double dropout, long seed,
                                  long step) {
        double sum = 0;
        for (BertClassifierRow r : run) {
            sum += ref.loss(r.ids(), r.label(), r.weight(), dropout, -1, seed, step, r.key());
        }
        return sum;
    }

    /** A coordinate whose gradient can be non-zero: for the embeddings, rows some row uses. */
    private static int coordinate(ParameterTensor t, List<BertClassifierRow> run, int E, Random pick) {
        int[] ids = run.get(pick.nextInt(run.size())).ids();
        switch (t.name()) {
            case BertWeights.WORD_EMBEDDINGS:
                return ids[pick.nextInt(ids.length)] * E + pick.nextInt(E);
            case BertWeights.POSITION_EMBEDDINGS:
                return pick.nextInt(ids.length) * E + pick.nextInt(E);
            case BertWeights.TOKEN_TYPE_EMBEDDINGS:
                return pick.nextInt(E);
            default:
                return pick.nextInt(t.size());
        }
    }

    @Test
    void theWordEmbeddingTravelsAsTheRowsTheRunTouched() {
        BertClassifierNetwork all = network(-1, Pooling.MEAN, 0.2);
        assertArrayEquals(new int[] {0}, all.rowSparseTensors());
        assertEquals(BertWeights.WORD_EMBEDDINGS, all.parameters().get(0).name());
        assertEquals(0, network(1, Pooling.MEAN, 0.2).rowSparseTensors().length, "no embedding trains");
        float[] theta = all.initialParameters();
        List<BertClassifierRow> run = rows(7, 1, 13, 21, 2);
        BertClassifierEvaluator ev = all.bind(theta, true, 1, 1);
        ev.add(run);
        GradientSums sums = new GradientSums(GradientLayout.of(all));
        ev.flushInto(sums);
        ev.add(run);
        double[] dense = new double[all.parameterCount()];
        ev.flushInto(dense);
        assertArrayEquals(dense, sums.toFlat(), "the same pending sums, flushed sparse or dense");
        Set<Integer> touched = new HashSet<>();
        for (BertClassifierRow r : run) {
            if (r.weight() > 0) {
                Arrays.stream(r.ids()).forEach(touched::add);
            }
        }
        assertEquals(touched.size(), sums.touchedRows(0), "one row per distinct id of the rows that weigh");
        GradientSums empty = new GradientSums(GradientLayout.of(all));
        ev.flushInto(empty);
        assertEquals(0, empty.touchedRows(0), "a flush clears what it flushed");
        assertTrue(Arrays.stream(empty.toFlat()).allMatch(g -> g == 0));
    }

    @Test
    void aRunThatDoesNotFitNamesTheRowAndLeavesNothingPending() {
        BertClassifierNetwork net = network(-1, Pooling.MEAN, 0.0);
        BertClassifierEvaluator ev = net.bind(net.initialParameters(), true, 1, 1);
        List<BertClassifierRow> bad = List.of(BertClassifierRow.of(new int[] {1, 2}, 0, 1, 76),
            BertClassifierRow.of(new int[] {1, 2}, 9, 1, 77));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ev.add(bad));
        assertTrue(e.getMessage().contains("row key 77") && e.getMessage().contains("label 9"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
            () -> ev.add(List.of(BertClassifierRow.of(new int[] {3, 40}, 0, 1, 78))));
        assertTrue(e.getMessage().contains("row key 78") && e.getMessage().contains("position 1"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
            () -> ev.add(List.of(new BertClassifierRow(new int[] {3}, new float[12], 0, 1, 79))));
        assertTrue(e.getMessage().contains("row key 79") && e.getMessage().contains("embeddings train"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> ev.weight(BertClassifierRow.of(new int[] {1}, 0, -1, 80)));
        assertTrue(e.getMessage().contains("row key 80"), e.getMessage());
        GradientSums sums = new GradientSums(GradientLayout.of(net));
        ev.flushInto(sums);
        assertTrue(Arrays.stream(sums.toFlat()).allMatch(g -> g == 0), "nothing pending after a refused run");
        assertEquals(0.0, ev.add(List.of()), "an empty run adds nothing");
        assertEquals(1.5, ev.weight(BertClassifierRow.of(new int[] {1}, 0, 1.5, 81)));
        assertThrows(IllegalArgumentException.class, () -> net.bind(new float[3], true, 0, 0));
    }

    @Test
    void bindsOfTheSameValuesShareTheirPreparedWeightsAndAChangedVectorIsPreparedAnew() {
        BertClassifierNetwork net = network(-1, Pooling.MEAN, 0.1);
        float[] theta = net.initialParameters();
        ClassifierWeights prepared = net.prepared(theta);
        assertSame(prepared, net.prepared(theta.clone()), "equal values, another array: shared");
        float[] changed = theta.clone();
        changed[changed.length - 1] += 1;
        ClassifierWeights other = net.prepared(changed);
        assertNotSame(prepared, other, "a changed vector is prepared anew");
        assertNotSame(other, net.prepared(theta), "the last prepared are the changed vector's");
    }

    @Test
    void anEvaluatorsPreparedWeightsStaySharedAcrossACollection() {
        BertClassifierNetwork net = network(-1, Pooling.MEAN, 0.1);
        float[] theta = net.initialParameters();
        BertClassifierEvaluator running = net.bind(theta, true, 1, 0);
        java.lang.ref.WeakReference<ClassifierWeights> seen = new java.lang.ref.WeakReference<>(net.prepared(theta));
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        assertSame(seen.get(), net.prepared(theta.clone()), "the running evaluator keeps them; the next bind shares them");
        java.lang.ref.Reference.reachabilityFence(running);
    }
}

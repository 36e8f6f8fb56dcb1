package io.sparkattention.bert;

import io.sparkattention.io.BertModelFiles;
import io.sparkattention.kernel.AttentionPath;
import io.sparkattention.nn.Pooling;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The encoder's contract beyond fidelity: edges, refusals, attention weights, serialization, threads. */
class BertEncoderTest {

    private static BertEncoder encoder;

    @BeforeAll
    static void load() throws IOException {
        encoder = BertModelFiles.fromOnnx(RandomBertFidelityTest.resource("random_bert_c.onnx"), 0);
    }

    @Test
    void anEmptySequenceGivesAnEmptyState() {
        assertEquals(0, encoder.forward(new int[0]).length);
    }

    @Test
    void idsOutsideTheVocabularyAreNamedByPosition() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> encoder.forward(new int[] {1, 2, 100}));
        assertTrue(e.getMessage().contains("token id 100 at position 2"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> encoder.forward(new int[] {-1}));
    }

    @Test
    void sequencesLongerThanThePositionsAreRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> encoder.forward(new int[65]));
        assertTrue(e.getMessage().contains("65 tokens") && e.getMessage().contains("64 positions"), e.getMessage());
    }

    @Test
    void headWeightsAreSoftmaxRowsAndLeaveTheStatesAlone() {
        int[] ids = randomIds(11, 3);
        int H = encoder.config().heads();
        for (int layer = 0; layer < encoder.config().layers(); layer++) {
            float[] w = new float[H * 11 * 11];
            float[] states = encoder.forward(ids, layer, w);
            assertArrayEquals(encoder.forward(ids), states);
            for (int row = 0; row < H * 11; row++) {
                double sum = 0;
                for (int k = 0; k < 11; k++) {
                    assertTrue(w[row * 11 + k] >= 0);
                    sum += w[row * 11 + k];
                }
                assertEquals(1.0, sum, 1e-5, "layer " + layer + " row " + row);
            }
        }
        assertThrows(IllegalArgumentException.class, () -> encoder.forward(ids, 2, new float[H * 121]));
        assertThrows(IllegalArgumentException.class, () -> encoder.forward(ids, 0, new float[H * 121 - 1]));
    }

    @Test
    void aSerializedEncoderComputesTheSameBits() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(encoder);
        }
        BertEncoder copy;
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            copy = (BertEncoder) in.readObject();
        }
        int[] ids = randomIds(20, 5);
        assertArrayEquals(encoder.forward(ids), copy.forward(ids));
    }

    @Test
    void aSequenceGetsTheSameBitsWhateverRanBeforeItAndOnWhichThread() throws Exception {
        int[] ids = randomIds(17, 9);
        float[] alone = encoder.forward(ids);
        encoder.forward(randomIds(64, 1));
        encoder.forward(randomIds(2, 2));
        assertArrayEquals(alone, encoder.forward(ids));
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<float[]> a = pool.submit(() -> {
                encoder.forward(randomIds(33, 4));
                return encoder.forward(ids);
            });
            Future<float[]> b = pool.submit(() -> encoder.forward(ids));
            assertArrayEquals(alone, a.get());
            assertArrayEquals(alone, b.get());
        } finally {
            pool.shutdown();
        }
    }

    @Test
    void aBatchGivesEverySequenceTheBitsItGetsAlone() throws IOException {
        int[][] batch = {randomIds(5, 1), new int[0], randomIds(1, 2), randomIds(64, 3), randomIds(17, 4)};
        float[][] together = encoder.forward(batch);
        assertEquals(batch.length, together.length);
        for (int r = 0; r < batch.length; r++) {
            assertArrayEquals(encoder.forward(batch[r]), together[r], "sequence " + r);
        }
        BertEncoder minilm = io.sparkattention.io.BundledModels.encoder("all-minilm-l6-v2");
        int[][] texts = {randomIds(23, 5), randomIds(130, 6), randomIds(2, 7), randomIds(57, 8)};
        float[][] states = minilm.forward(texts);
        for (int r = 0; r < texts.length; r++) {
            assertArrayEquals(minilm.forward(texts[r]), states[r], "MiniLM sequence " + r);
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> encoder.forward(new int[][] {randomIds(3, 1), {1, 200}}));
        assertTrue(e.getMessage().contains("sequence 1 of the batch") && e.getMessage().contains("position 1"),
            e.getMessage());
    }

    @Test
    void poolingModes() {
        float[] states = {1, -2, 3, 4, 2, -5};
        assertArrayEquals(new float[] {2, -1}, Pooling.MEAN.embed(states, 3, 2, false));
        assertArrayEquals(new float[] {1, -2}, Pooling.FIRST.embed(states, 3, 2, false));
        assertArrayEquals(new float[] {3, 4}, Pooling.MAX.embed(states, 3, 2, false));
        assertArrayEquals(new float[] {0.6f, 0.8f},
            Pooling.MAX.embed(states, 3, 2, true), 1e-7f);
        assertArrayEquals(new float[] {0, 0}, Pooling.MEAN.embed(new float[] {0, 0}, 1, 2, true), "a zero vector stays zero");
        assertEquals(Pooling.FIRST, Pooling.parse(" CLS "));
        assertEquals(Pooling.FIRST, Pooling.parse("first"));
        assertThrows(IllegalArgumentException.class, () -> Pooling.parse("median"));
        assertThrows(IllegalArgumentException.class,
            () -> Pooling.MEAN.embed(states, 4, 2, true));
    }

    @Test
    void theConfigRefusesHeadsThatDoNotDivideTheWidth() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> new BertConfig(1, 32, 3, 64, 64, 100, 2, 1e-12f));
        assertTrue(e.getMessage().contains("heads (3) must divide hidden (32)"), e.getMessage());
    }

    @Test
    void longSequencesOnTheTiledKernelMatchFloat64() throws IOException {
        BertEncoder minilm = io.sparkattention.io.BundledModels.encoder("all-minilm-l6-v2");
        for (int L : new int[] {AttentionPath.DIRECT_MAX_LENGTH, AttentionPath.DIRECT_MAX_LENGTH + 1, 300}) {
            Random r = new Random(L);
            int[] ids = new int[L];
            for (int i = 0; i < L; i++) {
                ids[i] = 1000 + r.nextInt(28000);
            }
            double err = Float64Bert.worstRelative(minilm.forward(ids), Float64Bert.forward(minilm.weights(), ids), 384);
            assertTrue(err <= 1e-5, "L=" + L + ": relative error " + err);
            float[] probs = new float[12 * L * L];
            assertArrayEquals(minilm.forward(ids), minilm.forward(ids, 3, probs));
        }
    }

    private static int[] randomIds(int length, long seed) {
        Random r = new Random(seed);
        int[] ids = new int[length];
        for (int i = 0; i < length; i++) {
            ids[i] = r.nextInt(100);
        }
        return ids;
    }
}

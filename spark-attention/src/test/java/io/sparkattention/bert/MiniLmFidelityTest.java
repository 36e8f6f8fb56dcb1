package io.sparkattention.bert;

import io.sparkattention.io.BundledModels;
import io.sparkattention.nn.Pooling;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The real all-MiniLM-L6-v2 (the ONNX inside langchain4j's artifact) against its float64
 * reference (fixtures/encoder/minilm_reference.jsonl, made by minilm_reference.py from the same
 * file), and against the values langchain4j's own test publishes.
 */
class MiniLmFidelityTest {

    private static BertEncoder encoder;

    @BeforeAll
    static void load() throws IOException {
        encoder = BundledModels.encoder(BundledModels.ALL_MINILM_L6_V2);
    }

    @Test
    void architectureComesFromTheGraph() {
        assertEquals(new BertConfig(6, 384, 12, 1536, 512, 30522, 2, 1e-12f), encoder.config());
    }

    @Test
    void everyReferenceTextMatchesTheFloat64Forward() {
        List<EncoderReference> refs = EncoderReference.read("/fixtures/encoder/minilm_reference.jsonl");
        assertEquals(6, refs.size());
        for (EncoderReference ref : refs) {
            ref.assertMatches(encoder.forward(ref.inputIds()), "all-MiniLM-L6-v2");
        }
    }

    @Test
    void iLoveSentenceTransformersMatchesLangchain4jsPublishedEmbedding() {
        // [CLS] i love sentence transformers . [SEP] in the model's WordPiece vocabulary
        int[] ids = {101, 1045, 2293, 6251, 19081, 1012, 102};
        float[] states = encoder.forward(ids);
        float[] e = Pooling.MEAN.embed(states, ids.length, 384, true);
        assertArrayEquals(new float[] {-0.0803190097f, -0.0171345081f, 0.0478825271f, -0.0561899580f},
            new float[] {e[0], e[1], e[382], e[383]}, 1e-6f);
    }
}

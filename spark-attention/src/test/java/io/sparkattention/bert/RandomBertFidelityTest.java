package io.sparkattention.bert;

import io.sparkattention.io.BertModelFiles;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Seeded random small BERTs exported from PyTorch (fixtures/encoder/make_random_berts.py) to ONNX
 * and to Hugging Face safetensors: both loads reproduce PyTorch's float64 forward on sequences of
 * 1, 2, 5, 17 and 64 (= every position) tokens.
 */
class RandomBertFidelityTest {

    /** Case, its architecture as the script makes it, and its safetensors prefix. */
    @ParameterizedTest(name = "random_bert_{0}")
    @CsvSource({
        "a, 1, 32, 2, 128, 100, 2, 1e-12, ''",
        "b, 2, 48, 4, 80, 97, 1, 1e-5, bert.",
        "c, 2, 32, 4, 64, 100, 2, 1e-12, 0.auto_model.",
    })
    void onnxAndSafeTensorsMatchTheFloat64Reference(String name, int layers, int hidden, int heads, int ffn,
                                                    int vocab, int types, float eps, String prefix)
        throws IOException {
        BertConfig expected = new BertConfig(layers, hidden, heads, ffn, 64, vocab, types, eps);
        List<EncoderReference> refs = EncoderReference.read("/fixtures/encoder/random_bert_" + name + ".jsonl");
        assertEquals(5, refs.size());

        BertEncoder fromOnnx = BertModelFiles.fromOnnx(resource("random_bert_" + name + ".onnx"), 0);
        assertEquals(expected, fromOnnx.config(), "architecture read from the ONNX graph");
        BertEncoder fromSafeTensors = BertModelFiles.fromSafeTensors(resource("random_bert_" + name
            + ".safetensors"), prefix, heads);
        assertEquals(expected, fromSafeTensors.config(), "architecture read from the safetensors shapes");
        for (EncoderReference ref : refs) {
            ref.assertMatches(fromOnnx.forward(ref.inputIds()), "ONNX L=" + ref.inputIds().length);
            ref.assertMatches(fromSafeTensors.forward(ref.inputIds()), "safetensors L=" + ref.inputIds().length);
        }
    }

    @ParameterizedTest(name = "random_bert_{0}")
    @CsvSource({"a", "b", "c"})
    void writtenSafeTensorsReadBackBitForBit(String name) throws IOException {
        BertEncoder original = BertModelFiles.fromOnnx(resource("random_bert_" + name + ".onnx"), 0);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BertModelFiles.writeSafeTensors(original, bytes);
        BertEncoder copy = BertModelFiles.fromSafeTensors(io.sparkattention.io.SafeTensors.fromBytes(
            bytes.toByteArray(), "copy.safetensors"), "", original.config().heads());
        assertEquals(original.config(), copy.config());
        for (Map.Entry<String, float[]> e : original.weights().tensors().entrySet()) {
            assertArrayEquals(e.getValue(), copy.weights().tensor(e.getKey()), e.getKey());
        }
        int[] ids = {3, 1, 4, 1, 5, 9, 2, 6};
        assertArrayEquals(original.forward(ids), copy.forward(ids));
        assertArrayEquals(original.forward(ids), BertModelFiles.fromOnnx(new ByteArrayInputStream(
            java.nio.file.Files.readAllBytes(resource("random_bert_" + name + ".onnx"))), 0).forward(ids),
            "the stream reader reads what the file reader reads");
    }

    static Path resource(String file) {
        try {
            return Paths.get(RandomBertFidelityTest.class.getResource("/fixtures/encoder/" + file).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}

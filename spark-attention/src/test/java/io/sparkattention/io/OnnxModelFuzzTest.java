package io.sparkattention.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;

/**
 * Any bytes given to {@link OnnxModel} either decode as a model whose every tensor (initializer or
 * Constant value) reads as floats or longs holding exactly its dims' elements, and whose graph
 * either loads as a BERT encoder ({@link BertModelFiles#fromOnnx(OnnxModel, int)}) or is refused
 * naming the source — or the bytes are refused with a {@link TensorFormatException} that names the
 * source. Nothing else is thrown, and no array outgrows the input.
 *
 * <p>Without {@code JAZZER_FUZZ} this runs the checked-in inputs under
 * {@code src/test/resources/io/sparkattention/io/OnnxModelFuzzTestInputs/} (a small random BERT,
 * hand-made graphs and tensors, and what the fuzzer has found); with it, Jazzer mutates them (see
 * {@code examples/peers/fuzz_long.sh}).
 */
class OnnxModelFuzzTest {

    private static final String SOURCE = "fuzzed.onnx";

    @FuzzTest(maxDuration = "10s")
    @DisplayName("any bytes decode as an ONNX model whose tensors read in full, or are refused naming the source")
    void anyBytesDecodeAsAModelOrAreRefusedNamingTheSource(byte[] bytes) {
        OnnxModel model;
        try {
            model = OnnxModel.parse(bytes, SOURCE);
        } catch (TensorFormatException e) {
            Refusals.assertNamesSource(e, SOURCE);
            return;
        }
        assertEquals(SOURCE, model.source());
        assertTrue(model.irVersion() >= 1, "ir_version " + model.irVersion());
        assertFalse(model.nodes().isEmpty(), "a model without nodes");
        List<OnnxTensor> tensors = new ArrayList<>(model.initializers().values());
        for (OnnxNode node : model.nodes()) {
            for (String output : node.outputs()) {
                assertTrue(model.producer(output) != null, "the producer of " + output);
            }
            for (OnnxNode.Attribute a : node.attributes().values()) {
                if (a.t() != null) {
                    tensors.add(a.t());
                }
            }
        }
        for (OnnxTensor t : tensors) {
            readEveryWay(t, bytes.length);
        }
        try {
            BertModelFiles.fromOnnx(model, 0);
        } catch (TensorFormatException e) {
            Refusals.assertNamesSource(e, SOURCE);
        } catch (IllegalArgumentException e) {
            Refusals.assertExplained(e);
        }
    }

    /** Reads a tensor as floats and as longs: each gives exactly its dims' elements, or a refusal naming it. */
    private static void readEveryWay(OnnxTensor t, int inputLength) {
        long expected = 1;
        boolean representable = true;
        for (long d : t.dims()) {
            if (d < 0) {
                representable = false;
                break;
            }
            try {
                expected = Math.multiplyExact(expected, d);
            } catch (ArithmeticException e) {
                representable = false;
                break;
            }
        }
        int read = 0;
        try {
            float[] f = t.floats();
            assertTrue(representable && f.length == expected, t.name() + ": " + f.length + " floats for dims "
                + java.util.Arrays.toString(t.dims()));
            Refusals.assertBackedByInput(f.length, 1, inputLength, t.name());
            read++;
        } catch (TensorFormatException e) {
            Refusals.assertNamesSource(e, SOURCE);
        }
        try {
            long[] l = t.longs();
            assertTrue(representable && l.length == expected, t.name() + ": " + l.length + " longs for dims "
                + java.util.Arrays.toString(t.dims()));
            Refusals.assertBackedByInput(l.length, 1, inputLength, t.name());
            read++;
        } catch (TensorFormatException e) {
            Refusals.assertNamesSource(e, SOURCE);
        }
        assertTrue(read <= 1, t.name() + " read both as floats and as longs (data type " + t.dataType() + ")");
    }
}

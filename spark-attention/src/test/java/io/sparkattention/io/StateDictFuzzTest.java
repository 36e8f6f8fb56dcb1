package io.sparkattention.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.sparkattention.nn.AttentionClassifierNetwork;
import io.sparkattention.nn.MultiHeadAttentionWeights;
import io.sparkattention.nn.Pooling;
import java.io.IOException;
import java.util.LinkedHashSet;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;

/**
 * The PyTorch state_dict loaders on any safetensors bytes: they return weights that the bytes
 * hold, or refuse with a {@link TensorFormatException} naming the source (and an
 * {@link IllegalArgumentException} only where their contract says: a head count that does not
 * divide the embedding width, a network too large for one parameter array). No load allocates
 * more than the file's tensors justify.
 *
 * <p>Checked-in inputs: {@code src/test/resources/io/sparkattention/io/StateDictFuzzTestInputs/}.
 */
class StateDictFuzzTest {

    private static final String SOURCE = "fuzzed.safetensors";

    /** Head counts tried on each file: 1 always divides E; 2 and 3 divide some and not others. */
    private static final int[] HEADS = {1, 2, 3};

    @FuzzTest(maxDuration = "10s")
    @DisplayName("nn.MultiheadAttention weights load from any safetensors bytes, or are refused naming the tensor")
    void multiHeadAttentionLoadsOrRefusesNamingTheTensor(byte[] bytes) throws IOException {
        SafeTensors st = open(bytes);
        if (st == null) {
            return;
        }
        for (String prefix : prefixes(st)) {
            for (int heads : HEADS) {
                try {
                    MultiHeadAttentionWeights w = MultiHeadAttentionStateDict.load(st, prefix, heads);
                    int e = w.embedDim();
                    assertEquals(0, e % heads, "E divisible by the heads");
                    long values = 2L * e * e + (long) e * w.kdim() + (long) e * w.vdim();
                    Refusals.assertBackedByInput(values, 2, bytes.length, prefix + "*");
                } catch (TensorFormatException ex) {
                    Refusals.assertNamesSource(ex, SOURCE);
                } catch (IllegalArgumentException ex) {
                    Refusals.assertExplained(ex);
                    assertTrue(ex.getMessage().startsWith("numHeads (" + heads + ") must divide embed_dim"),
                        ex.getMessage());
                }
            }
        }
    }

    @FuzzTest(maxDuration = "10s")
    @DisplayName("classifier weights load from any safetensors bytes, or are refused before a large allocation")
    void classifierLoadsOrRefusesNamingTheTensor(byte[] bytes) throws IOException {
        SafeTensors st = open(bytes);
        if (st == null) {
            return;
        }
        int[] ek;
        try {
            ek = ClassifierStateDict.dimensions(st);
        } catch (TensorFormatException e) {
            Refusals.assertNamesSource(e, SOURCE);
            return;
        }
        Refusals.assertBackedByInput((long) ek[0] * ek[1], 1, bytes.length, ClassifierStateDict.CLASSIFIER_WEIGHT);
        AttentionClassifierNetwork network;
        try {
            network = new AttentionClassifierNetwork(ek[0], 1, ek[1], false, true, Pooling.parse("mean"));
        } catch (IllegalArgumentException e) {
            Refusals.assertExplained(e);
            assertTrue(e.getMessage().contains("more than one array holds"), e.getMessage());
            return;
        }
        try {
            float[] theta = ClassifierStateDict.load(st, network.parameters(), network.parameterCount());
            assertEquals(network.parameterCount(), theta.length);
            Refusals.assertBackedByInput(theta.length, 2, bytes.length, "the classifier's parameters");
            for (float x : theta) {
                assertTrue(Float.isFinite(x), "a non-finite parameter was loaded");
            }
        } catch (TensorFormatException e) {
            Refusals.assertNamesSource(e, SOURCE);
        }
    }

    private static SafeTensors open(byte[] bytes) {
        try {
            return SafeTensors.fromBytes(bytes, SOURCE);
        } catch (TensorFormatException e) {
            Refusals.assertNamesSource(e, SOURCE);
            return null;
        }
    }

    /**
     * The empty prefix and, at most two, module prefixes the file's names suggest: whatever comes
     * before {@code in_proj_weight} or {@code q_proj_weight}.
     */
    private static Set<String> prefixes(SafeTensors st) {
        Set<String> out = new LinkedHashSet<>();
        out.add("");
        for (String name : st.names()) {
            for (String suffix : new String[] {MultiHeadAttentionStateDict.IN_PROJ_WEIGHT,
                MultiHeadAttentionStateDict.Q_PROJ_WEIGHT}) {
                if (name.endsWith(suffix) && out.size() < 3) {
                    out.add(name.substring(0, name.length() - suffix.length()));
                }
            }
        }
        return out;
    }
}

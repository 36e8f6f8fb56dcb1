package io.sparkattention.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;

/**
 * Any bytes given to {@link Npy} either read as a float32 or float64 C-order array that the bytes
 * hold in full, or are refused with a {@link TensorFormatException} that names the source.
 * Nothing else is thrown, and no array outgrows the input.
 *
 * <p>Checked-in inputs: {@code src/test/resources/io/sparkattention/io/NpyFuzzTestInputs/}.
 */
class NpyFuzzTest {

    private static final String SOURCE = "fuzzed.npy";

    @FuzzTest(maxDuration = "10s")
    @DisplayName("any bytes read as a float array the bytes hold, or are refused naming the source")
    void anyBytesReadAsAFloatArrayOrAreRefusedNamingTheSource(byte[] bytes) {
        NpyArray array;
        try {
            array = Npy.fromBytes(bytes, SOURCE);
        } catch (TensorFormatException e) {
            Refusals.assertNamesSource(e, SOURCE);
            return;
        }
        assertTrue(Set.of("<f4", "<f8").contains(array.descr()), array.descr());
        long product = 1;
        for (long d : array.shape()) {
            assertTrue(d >= 0, "a negative dimension was accepted");
            product *= d;
        }
        assertEquals(product, array.data().length, "elements of shape");
        int width = array.descr().equals("<f4") ? Float.BYTES : Double.BYTES;
        Refusals.assertBackedByInput(array.data().length, width, bytes.length, SOURCE);
    }
}

package io.sparkattention.io;

import io.sparkattention.nn.AttentionClassifierNetwork;
import io.sparkattention.nn.Pooling;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The classifier's flat parameter vector to and from PyTorch's state_dict names. */
class ClassifierStateDictTest {

    private final AttentionClassifierNetwork net = new AttentionClassifierNetwork(8, 2, 3, false, true, Pooling.MEAN);

    private float[] randomParameters() {
        SplittableRandom random = new SplittableRandom(17);
        float[] theta = new float[net.parameterCount()];
        for (int i = 0; i < theta.length; i++) {
            theta[i] = (float) random.nextGaussian();
        }
        return theta;
    }

    private static SafeTensors reopen(Map<String, Tensor> tensors) throws IOException {
        return SafeTensors.fromBytes(SafeTensorsWriter.toBytes(tensors, null), "test.safetensors");
    }

    @Test
    @DisplayName("toTensors writes the six state_dict tensors with PyTorch's shapes; load reads them back bit for bit")
    void roundTrip() throws IOException {
        float[] theta = randomParameters();
        Map<String, Tensor> tensors = ClassifierStateDict.toTensors(theta, net.parameters());
        assertEquals(List.of("attention.in_proj_weight", "attention.in_proj_bias", "attention.out_proj.weight",
            "attention.out_proj.bias", "classifier.weight", "classifier.bias"), List.copyOf(tensors.keySet()));
        assertArrayEquals(new long[] {24, 8}, tensors.get("attention.in_proj_weight").shape());
        assertArrayEquals(new long[] {3, 8}, tensors.get("classifier.weight").shape());
        SafeTensors st = reopen(tensors);
        assertArrayEquals(new int[] {8, 3}, ClassifierStateDict.dimensions(st));
        assertArrayEquals(theta, ClassifierStateDict.load(st, net.parameters(), net.parameterCount()));
    }

    @Test
    @DisplayName("a missing tensor, a wrong shape and a NaN value are each named with the tensor")
    void badTensors() throws IOException {
        Map<String, Tensor> tensors = ClassifierStateDict.toTensors(randomParameters(), net.parameters());
        tensors.remove("attention.out_proj.bias");
        SafeTensors missing = reopen(tensors);
        TensorFormatException e = assertThrows(TensorFormatException.class,
            () -> ClassifierStateDict.load(missing, net.parameters(), net.parameterCount()));
        assertEquals("attention.out_proj.bias", e.tensor());
        assertTrue(e.getMessage().contains("missing"), e.getMessage());

        tensors.put("attention.out_proj.bias", Tensor.f32(new float[4], 2, 2));
        SafeTensors misshaped = reopen(tensors);
        e = assertThrows(TensorFormatException.class,
            () -> ClassifierStateDict.load(misshaped, net.parameters(), net.parameterCount()));
        assertTrue(e.getMessage().contains("[2, 2]") && e.getMessage().contains("expected [8]"), e.getMessage());

        float[] nan = new float[8];
        nan[5] = Float.NaN;
        tensors.put("attention.out_proj.bias", Tensor.f32(nan, 8));
        SafeTensors withNan = reopen(tensors);
        e = assertThrows(TensorFormatException.class,
            () -> ClassifierStateDict.load(withNan, net.parameters(), net.parameterCount()));
        assertTrue(e.getMessage().contains("NaN at flat index 5"), e.getMessage());

        tensors.remove("classifier.weight");
        SafeTensors noHead = reopen(tensors);
        e = assertThrows(TensorFormatException.class, () -> ClassifierStateDict.dimensions(noHead));
        assertEquals("classifier.weight", e.tensor());
    }

    @Test
    @DisplayName("a lone wide classifier.weight (E = 20000 from 20 kB) is refused as missing tensors before a "
        + "6.4 GB parameter vector is allocated")
    void wideHeadAloneIsRefusedBeforeAllocating() throws IOException {
        SafeTensors st = reopen(Map.of("classifier.weight", Tensor.f32(new float[20_000], 1, 20_000)));
        int[] ek = ClassifierStateDict.dimensions(st);
        AttentionClassifierNetwork wide = new AttentionClassifierNetwork(ek[0], 1, ek[1], false, true, Pooling.MEAN);
        TensorFormatException e = assertThrows(TensorFormatException.class,
            () -> ClassifierStateDict.load(st, wide.parameters(), wide.parameterCount()));
        assertEquals("attention.in_proj_weight", e.tensor());
        assertTrue(e.getMessage().contains("missing; expected shape [60000, 20000]"), e.getMessage());
    }
}

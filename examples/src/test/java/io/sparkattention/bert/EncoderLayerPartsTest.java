package io.sparkattention.bert;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The parts {@code bench --layer-split} times are the layer's own arithmetic: run in order, they
 * give the layer's output bit for bit, on stacked sequences of awkward lengths (0, 1, and lengths
 * beyond the direct attention path's 128 and not a multiple of a block).
 */
class EncoderLayerPartsTest {

    @Test
    void thePartsInOrderGiveTheLayersOutputBitForBit() {
        int E = 32, H = 4, F = 64;
        BertWeights w = BertClassifierGradientTest.randomEncoder(1, E, H, F, 50, 256, 41);
        int[] lengths = {0, 1, 7, 130, 33};
        int M = 0;
        for (int l : lengths) {
            M += l;
        }
        SplittableRandom random = new SplittableRandom(43);
        float[] x = new float[M * E];
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) (random.nextDouble() * 4 - 2);
        }
        EncoderLayerParts parts = new EncoderLayerParts(w.config(), w.layer(0), lengths, x);
        parts.whole();
        assertArrayEquals(parts.layerOutput(), parts.partsOutput());
        for (int p = 0; p < EncoderLayerParts.PARTS.size(); p++) {
            parts.run(p);
        }
        assertArrayEquals(parts.layerOutput(), parts.partsOutput(), "the parts run again");
    }

    @Test
    void badShapesAreNamed() {
        BertWeights w = BertClassifierGradientTest.randomEncoder(1, 16, 2, 32, 50, 64, 47);
        assertThrows(IllegalArgumentException.class,
            () -> new EncoderLayerParts(w.config(), w.layer(0), new int[] {3}, new float[2 * 16]));
        assertThrows(IllegalArgumentException.class,
            () -> new EncoderLayerParts(w.config(), w.layer(0), new int[] {-1}, new float[0]));
    }
}

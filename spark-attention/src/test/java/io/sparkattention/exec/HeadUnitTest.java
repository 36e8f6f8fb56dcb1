package io.sparkattention.exec;

import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.RowMask;
import io.sparkattention.kernel.Workspace;
import io.sparkattention.nn.PreparedSequence;
import io.sparkattention.nn.AttentionWeightsMode;
import io.sparkattention.testing.RandomTensors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class HeadUnitTest {

    @Test
    @DisplayName("a head computed alone equals that head of its whole row bit for bit, with GQA and a sliding window")
    void headsEqualTheirRow() {
        RandomTensors rnd = new RandomTensors(23);
        AttentionShape shape = new AttentionShape(1100, 1100, 4, 2, 32, 24);
        float[] q = rnd.normal(shape.querySize(), 1), k = rnd.normal(shape.keySize(), 1);
        float[] v = rnd.normal(shape.valueSize(), 1);
        FlashAttention kernel = new FlashAttention(AttentionSpec.defaults().withCausal(true).withWindow(300, 0));
        float[] row = new float[shape.outputSize()];
        kernel.forward(shape, q, k, v, RowMask.NONE, row, null);

        PreparedSequence sequence = new PreparedSequence(shape, q, k, v, RowMask.NONE);
        RowOutput heads = new RowOutput(shape, AttentionWeightsMode.NONE);
        Workspace ws = new Workspace();
        for (int h = 0; h < shape.numHeads(); h++) {
            HeadUnit.of(sequence, h).compute(kernel, false, ws).addTo(heads);
        }
        for (int i = 0; i < row.length; i++) {
            assertEquals(Float.floatToIntBits(row[i]), Float.floatToIntBits(heads.values()[i]), "value " + i);
        }
    }
}

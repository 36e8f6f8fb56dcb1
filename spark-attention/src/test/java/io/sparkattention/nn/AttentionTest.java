package io.sparkattention.nn;

import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.AttentionSpec;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.kernel.RowMask;
import io.sparkattention.kernel.Workspace;
import io.sparkattention.testing.RandomTensors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Attention.compute into a caller's output array, as a task reuses one from row to row. */
class AttentionTest {

    @Test
    @DisplayName("a reused output array holding another row's values (and NaN) is overwritten whole, fully masked rows included")
    void reusedOutputIsOverwritten() {
        RandomTensors rnd = new RandomTensors(5);
        FlashAttention kernel = new FlashAttention(AttentionSpec.defaults().withCausal(true));
        AttentionShape shape = new AttentionShape(6, 4, 2, 1, 3, 5);
        float[] q = rnd.normal(shape.querySize(), 1), k = rnd.normal(shape.keySize(), 1), v = rnd.normal(shape.valueSize(), 1);
        RowMask mask = RowMask.keyLength(2).withAllowed(rnd.bernoulli(6 * 4, 0.5));
        Workspace ws = new Workspace();
        Attention.Output fresh = Attention.compute(kernel, shape, q, k, v, mask, AttentionWeightsMode.PER_HEAD, ws);
        float[] stale = new float[shape.outputSize()];
        Arrays.fill(stale, Float.NaN);
        Attention.Output reused = Attention.compute(kernel, shape, q, k, v, mask, AttentionWeightsMode.PER_HEAD, ws, stale);
        assertSame(stale, reused.values());
        assertArrayEquals(fresh.values(), reused.values());
        assertArrayEquals(fresh.weights(), reused.weights());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> Attention.compute(kernel, shape, q, k, v, mask, AttentionWeightsMode.NONE, ws, new float[3]));
        assertEquals("output of " + shape + " needs 60 values, got 3", e.getMessage());
    }
}

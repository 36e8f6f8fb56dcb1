package io.sparkattention.nn;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/** {@link SpareBuffers}: one pool of spare sets for the JVM, each set taken by one holder at a time. */
class SpareBuffersTest {

    @Test
    @DisplayName("a set given back on one thread is taken on another, once; the pool keeps one owner's sets")
    void oneHolderAtATimeOnAnyThread() throws Exception {
        SpareBuffers<int[]> spares = new SpareBuffers<>();
        Object network = new Object(), other = new Object();
        int[] a = new int[4], b = new int[4];
        CompletableFuture.runAsync(() -> spares.give(network, a)).get();
        spares.give(network, b);
        int[] first = CompletableFuture.supplyAsync(() -> spares.take(network)).get();
        int[] second = spares.take(network);
        assertSame(b, first, "the last given is taken first");
        assertSame(a, second);
        assertNull(spares.take(network), "each set is taken once");

        spares.give(network, a);
        spares.give(other, b);
        assertSame(b, spares.take(other));
        assertNull(spares.take(network), "a set given for another owner dropped the network's");
        spares.give(network, a);
        assertNull(spares.take(other), "a take for another owner finds none, and drops the network's");
        assertNull(spares.take(network));
    }
}

package io.sparkattention.ml.training;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConsecutiveKeysTest {

    @Test
    @DisplayName("by count, key k of N goes to partition floor(k·P / N); equal costs give the same layout")
    void countLayout() {
        for (int n = 1; n <= 40; n++) {
            for (int p = 1; p <= 9; p++) {
                ConsecutiveKeys byCount = new ConsecutiveKeys(n, p);
                int[] costs = new int[n];
                Arrays.fill(costs, 7);
                ConsecutiveKeys byCost = ConsecutiveKeys.byCost(costs, p);
                ConsecutiveKeys allZero = ConsecutiveKeys.byCost(new int[n], p);
                assertEquals(p, byCount.numPartitions());
                for (long k = 0; k < n; k++) {
                    int want = (int) (k * p / n);
                    assertEquals(want, byCount.getPartition(k), "key " + k + " of " + n + ", " + p + " partitions");
                    assertEquals(want, byCost.getPartition(k), "equal costs, key " + k + " of " + n + ", " + p);
                    assertEquals(want, allZero.getPartition(k), "zero costs, key " + k + " of " + n + ", " + p);
                }
                assertEquals(byCount, byCost);
                assertEquals(byCount.hashCode(), byCost.hashCode());
            }
        }
    }

    @Test
    @DisplayName("by cost, partition p starts at the key whose cost before it is nearest p·T/P: runs of "
        + "consecutive keys in key order, each within one row of T/P")
    void costLayout() {
        // C(k) = 0, 10, 12, 14, 44, 46, 48, 50; T = 60. P = 2: C(4) = 44 is nearer 30 than C(3) = 14.
        int[] costs = {10, 2, 2, 30, 2, 2, 2, 10};
        assertEquals(Arrays.toString(new int[] {0, 0, 0, 0, 1, 1, 1, 1}),
            Arrays.toString(partitions(ConsecutiveKeys.byCost(costs, 2), 8)));
        // P = 3: C(3) = 14 is nearest 20, C(4) = 44 nearest 40.
        assertEquals(Arrays.toString(new int[] {0, 0, 0, 1, 2, 2, 2, 2}),
            Arrays.toString(partitions(ConsecutiveKeys.byCost(costs, 3), 8)));
        // A long key may span shares, leaving a partition empty: T = 102, shares 25.5, 51, 76.5; C(1) = 1 is
        // nearest the first, C(1) = 1 and C(2) = 101 tie for the second (the later wins), C(2) is nearest the third.
        assertEquals(Arrays.toString(new int[] {0, 1, 3}),
            Arrays.toString(partitions(ConsecutiveKeys.byCost(new int[] {1, 100, 1}, 4), 3)));
        java.util.Random random = new java.util.Random(11);
        int[] lengths = new int[32];
        for (int i = 0; i < lengths.length; i++) {
            lengths[i] = 20 + random.nextInt(200);
        }
        long total = Arrays.stream(lengths).sum();
        for (int p = 1; p <= 8; p++) {
            int[] parts = partitions(ConsecutiveKeys.byCost(lengths, p), lengths.length);
            long[] cost = new long[p];
            for (int k = 0; k < lengths.length; k++) {
                assertTrue(k == 0 || parts[k] >= parts[k - 1], "key order, " + p + " partitions");
                cost[parts[k]] += lengths[k];
            }
            for (int q = 0; q < p; q++) {
                assertTrue(Math.abs(cost[q] - (double) total / p) < 220, "partition " + q + " of " + p + " costs "
                    + cost[q] + " of " + total);
            }
        }
    }

    @Test
    @DisplayName("the fine-tuning benchmark's 32 passages in two partitions: 841 and 864 tokens by cost, "
        + "824 and 881 by count")
    void benchmarkPassages() {
        int[] tokens = {53, 41, 18, 46, 65, 54, 78, 30, 35, 49, 48, 74, 34, 65, 66, 68, 17, 88, 63, 36, 25, 15, 77, 65,
            71, 68, 53, 62, 20, 77, 92, 52};
        assertArrayEquals(new long[] {841, 864}, costs(ConsecutiveKeys.byCost(tokens, 2), tokens));
        assertArrayEquals(new long[] {824, 881}, costs(new ConsecutiveKeys(tokens.length, 2), tokens));
    }

    @Test
    @DisplayName("a negative cost or no partitions is refused, naming the key")
    void badInput() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> ConsecutiveKeys.byCost(new int[] {3, -1}, 2));
        assertTrue(e.getMessage().contains("key 1"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ConsecutiveKeys.byCost(new int[] {3}, 0));
        assertThrows(IllegalArgumentException.class, () -> new ConsecutiveKeys(3, 0));
    }

    private static long[] costs(ConsecutiveKeys layout, int[] costs) {
        long[] sums = new long[layout.numPartitions()];
        for (int k = 0; k < costs.length; k++) {
            sums[layout.getPartition((long) k)] += costs[k];
        }
        return sums;
    }

    private static int[] partitions(ConsecutiveKeys layout, int keys) {
        int[] p = new int[keys];
        for (int k = 0; k < keys; k++) {
            p[k] = layout.getPartition((long) k);
        }
        return p;
    }
}

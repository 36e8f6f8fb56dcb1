package io.sparkattention.exec;

import io.sparkattention.nn.AttentionWeightsMode;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The auto rule on synthetic workloads (no Spark): each branch, with the default thresholds. */
class AutoStrategyTest {

    private static final ExecutionSettings DEFAULTS = ExecutionSettings.defaults();

    private static Strategy choose(WorkloadStats stats, int cores, AttentionWeightsMode weights) {
        return AutoStrategy.choose(stats, cores, weights, DEFAULTS).strategy();
    }

    @Test
    @DisplayName("little work: batch, whatever the shape")
    void smallWorkIsBatch() {
        assertEquals(Strategy.BATCH, choose(WorkloadStats.uniform(1, 1, 16, 2048, 2048), 64, AttentionWeightsMode.NONE));
        assertEquals(Strategy.BATCH, choose(WorkloadStats.uniform(0, 0, 8, 0, 0), 8, AttentionWeightsMode.NONE));
    }

    @Test
    @DisplayName("many rows over many partitions: batch")
    void manyRowsAreBatch() {
        assertEquals(Strategy.BATCH, choose(WorkloadStats.uniform(10_000, 200, 8, 512, 512), 16, AttentionWeightsMode.NONE));
        // 3 equal rows on 2 cores: 2 rounds against 1.5 ideal (1.33 > 1.25), 8 heads spread: head
        assertEquals(Strategy.HEAD, choose(WorkloadStats.uniform(3, 3, 8, 8192, 8192), 2, AttentionWeightsMode.NONE));
        // 4 equal rows in 4 partitions on 2 cores: 2 perfect rounds
        assertEquals(Strategy.BATCH, choose(WorkloadStats.uniform(4, 4, 8, 8192, 8192), 2, AttentionWeightsMode.NONE));
    }

    @Test
    @DisplayName("batch counts only the input's partitions: many rows in one partition spread by head")
    void batchDoesNotMoveRows() {
        assertEquals(Strategy.HEAD, choose(WorkloadStats.uniform(64, 1, 8, 4096, 4096), 8, AttentionWeightsMode.NONE));
    }

    @Test
    @DisplayName("one long single-head row: sequence; with weights requested: batch, and the reason says why")
    void oneLongHead() {
        WorkloadStats one = WorkloadStats.uniform(1, 1, 1, 131_072, 131_072);
        assertEquals(Strategy.SEQUENCE, choose(one, 2, AttentionWeightsMode.NONE));
        AutoStrategy.Choice withWeights = AutoStrategy.choose(one, 2, AttentionWeightsMode.AVERAGED, DEFAULTS);
        assertEquals(Strategy.BATCH, withWeights.strategy());
        assertTrue(withWeights.reason().contains("sequence cannot produce"), withWeights.reason());
    }

    @Test
    @DisplayName("few long rows with fewer heads than cores: sequence; as many heads as cores: head")
    void headsAgainstCores() {
        assertEquals(Strategy.SEQUENCE, choose(WorkloadStats.uniform(1, 1, 2, 65_536, 65_536), 16, AttentionWeightsMode.NONE));
        assertEquals(Strategy.HEAD, choose(WorkloadStats.uniform(1, 1, 16, 65_536, 65_536), 16, AttentionWeightsMode.NONE));
    }

    @Test
    @DisplayName("a row that fits one sequence block gains nothing from sequence")
    void shortRowsNeverSequence() {
        WorkloadStats stats = WorkloadStats.uniform(1, 1, 1, 4096, 4096);
        ExecutionSettings eager = new ExecutionSettings(8192, 4, 0, 0, 1.25);
        assertEquals(Strategy.BATCH, AutoStrategy.choose(stats, 8, AttentionWeightsMode.NONE, eager).strategy());
    }

    @Test
    @DisplayName("the estimate is rounds of the largest unit")
    void estimate() {
        assertEquals(2.0, AutoStrategy.estimate(3, 1, 2));
        assertEquals(1.0, AutoStrategy.estimate(2, 1, 2));
        assertEquals(100.0, AutoStrategy.estimate(100, 100, 8));
    }
}

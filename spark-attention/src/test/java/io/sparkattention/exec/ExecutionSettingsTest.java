package io.sparkattention.exec;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Strategy names and the execution tunables: parsing, defaults, errors that name the setting. */
class ExecutionSettingsTest {

    @Test
    @DisplayName("strategies parse case-insensitively; anything else lists the accepted values")
    void strategyNames() {
        assertEquals(Strategy.SEQUENCE, Strategy.parse(" Sequence "));
        assertEquals("head", Strategy.HEAD.paramValue());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Strategy.parse("rows"));
        assertEquals("strategy must be one of auto, batch, head, sequence; got rows", e.getMessage());
    }

    @Test
    @DisplayName("unit partitions: cores × tasks per core unless set; bad values name their key")
    void settings() {
        ExecutionSettings d = ExecutionSettings.defaults();
        assertEquals(8192, d.sequenceBlockRows());
        assertEquals(8, d.unitPartitions(2));
        assertEquals(5, new ExecutionSettings(64, 4, 5, 0, 1.0).unitPartitions(100));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> new ExecutionSettings(0, 4, 0, 0, 1.25));
        assertTrue(e.getMessage().startsWith(ExecutionSettings.SEQUENCE_BLOCK_ROWS + " must be >= 1"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new ExecutionSettings(64, 4, 0, 0, 0.5));
        assertTrue(e.getMessage().startsWith(ExecutionSettings.AUTO_IMBALANCE), e.getMessage());
    }
}

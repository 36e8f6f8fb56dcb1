package io.sparkattention.exec;

import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.sql.RuntimeConfig;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Small sequence blocks on the test session before each test ({@link #BLOCK_ROWS} rows, so that
 * test rows are cut into many (query block, key block) units), and the execution settings the
 * strategy tests change unset after it.
 */
final class SmallSequenceBlocks implements BeforeEachCallback, AfterEachCallback {

    /** Rows per sequence block. */
    static final int BLOCK_ROWS = 16;

    @Override
    public void beforeEach(ExtensionContext context) {
        SparkTestSession.get().conf().set(ExecutionSettings.SEQUENCE_BLOCK_ROWS, String.valueOf(BLOCK_ROWS));
    }

    @Override
    public void afterEach(ExtensionContext context) {
        RuntimeConfig conf = SparkTestSession.get().conf();
        conf.unset(ExecutionSettings.SEQUENCE_BLOCK_ROWS);
        conf.unset(ExecutionSettings.UNIT_PARTITIONS);
        conf.unset(ExecutionSettings.AUTO_MIN_SHUFFLE_SCORES);
    }
}

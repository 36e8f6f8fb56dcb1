package io.sparkattention.exec;

import io.sparkattention.kernel.AttentionShape;
import io.sparkattention.kernel.FlashAttention;
import io.sparkattention.nn.PreparedSequence;
import io.sparkattention.nn.AttentionWeightsMode;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructType;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

/**
 * Test-only fault injection: delegates to a job, but the first call of {@code prepare} (first
 * stage) and the first call of {@code finish} (last stage) in the whole cluster throw. "First" is
 * decided by atomically creating a marker file in a directory all executors of this machine see,
 * so exactly one task attempt fails at each place and its retry succeeds.
 */
final class FaultyJob implements AttentionJob {

    private static final long serialVersionUID = 1L;

    private final AttentionJob job;
    private final String markerDir;

    FaultyJob(AttentionJob job, Path markerDir) {
        this.job = job;
        this.markerDir = markerDir.toAbsolutePath().toString();
    }

    /** Throws when this is the first call at {@code place} anywhere. */
    private void failOnce(String place) {
        try {
            Files.createFile(Paths.get(markerDir, place));
        } catch (FileAlreadyExistsException e) {
            return;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        throw new IllegalStateException("injected fault: first call of " + place);
    }

    /** Whether the fault at {@code place} has fired. */
    static boolean fired(Path markerDir, String place) {
        return Files.exists(markerDir.resolve(place));
    }

    @Override
    public PreparedSequence prepare(Object[] values) {
        failOnce("prepare");
        return job.prepare(values);
    }

    @Override
    public float[] finish(float[] attended, int queryLength) {
        failOnce("finish");
        return job.finish(attended, queryLength);
    }

    @Override
    public List<String> inputColumns() {
        return job.inputColumns();
    }

    @Override
    public String queryColumn() {
        return job.queryColumn();
    }

    @Override
    public String keyColumn() {
        return job.keyColumn();
    }

    @Override
    public int numHeads() {
        return job.numHeads();
    }

    @Override
    public String rowIdColumn() {
        return job.rowIdColumn();
    }

    @Override
    public StructType outputStruct() {
        return job.outputStruct();
    }

    @Override
    public AttentionWeightsMode weightsMode() {
        return job.weightsMode();
    }

    @Override
    public FlashAttention kernel() {
        return job.kernel();
    }

    @Override
    public InternalRow encode(float[] output, float[] weights, AttentionShape shape) {
        return job.encode(output, weights, shape);
    }
}

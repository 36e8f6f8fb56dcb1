package io.sparkattention.exec;

import io.sparkattention.kernel.Workspace;
import io.sparkattention.nn.Attention;
import io.sparkattention.nn.PreparedSequence;
import io.sparkattention.rows.RowBuffers;

/** The batch strategy's per-row work: prepare, attend all heads, finish, encode. */
final class BatchRowFunction implements RowFunction {

    private static final long serialVersionUID = 1L;

    private final AttentionJob job;
    /** Kernel scratch reused across the task's rows (one copy of this function per task). */
    private transient Workspace workspace;
    /** Decoded inputs and kernel output reused across the task's rows; free again once a row is encoded. */
    private transient RowBuffers buffers;

    BatchRowFunction(AttentionJob job) {
        this.job = job;
    }

    @Override
    public Object apply(Object[] inputs) {
        if (workspace == null) {
            workspace = new Workspace();
            buffers = new RowBuffers();
        }
        PreparedSequence p = job.prepare(inputs, buffers);
        if (p == null) {
            return null;
        }
        float[] attended = buffers.floats(RowBuffers.Slot.OUTPUT, p.shape().outputSize());
        Attention.Output out = Attention.compute(job.kernel(), p.shape(), p.q(), p.k(), p.v(), p.mask(),
            job.weightsMode(), workspace, attended);
        return job.encode(job.finish(out.values(), p.shape().queryLength()), out.weights(), p.shape());
    }
}

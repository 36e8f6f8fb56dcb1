package io.sparkattention.examples.bench;

import io.sparkattention.ml.training.StepTimes;
import org.apache.spark.executor.TaskMetrics;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.TaskInfo;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where a fine-tuning step's wall time goes ({@code bench --fine-tune}'s {@code step_split}): the
 * engine's driver-side times of each step ({@link StepTimes}: broadcast, job, update) beside the
 * tasks' own metrics, heard as a {@link SparkListener}, over the timed steps. Shares of the task
 * slots' time (slots × wall):
 * <pre>
 *   executor_compute   Σ tasks' run time − their GC time − their results' serialisation
 *   executor_gc        Σ tasks' GC time (in local mode the JVM's pauses, which the driver shares)
 *   result_transfer    Σ results' serialisation and their fetch to the driver
 *   driver_update      the mean gradient, clipping and AdamW on the driver (every slot idle)
 *   broadcast          making and destroying the parameters' broadcast (every slot idle)
 *   idle_in_job        the rest: slots waiting within a job (scheduling, the last task, the group tasks)
 * </pre>
 * with {@code non_compute} = 1 − executor_compute, and what a step's task results weighed.
 */
final class StepSplit extends SparkListener {

    private final int slots;
    private final int firstTimed;
    private final int lastTimed;
    private double runMs, gcMs, resultSerMs, gettingResultMs, resultBytes;
    private double broadcastMs, jobMs, updateMs;
    private long largestTaskValues;
    private int timedSteps;
    /** Whether the tasks heard now belong to a timed step's job. */
    private boolean counting;

    /**
     * @param slots      the cluster's task slots
     * @param firstTimed the first timed step (the warm-up steps before it do not count)
     * @param lastTimed  the last timed step
     */
    StepSplit(int slots, int firstTimed, int lastTimed) {
        this.slots = slots;
        this.firstTimed = firstTimed;
        this.lastTimed = lastTimed;
        this.counting = firstTimed == 0;
    }

    @Override
    public synchronized void onTaskEnd(SparkListenerTaskEnd end) {
        TaskMetrics m = end.taskMetrics();
        TaskInfo info = end.taskInfo();
        if (m == null || !counting) {
            return;
        }
        runMs += m.executorRunTime();
        gcMs += m.jvmGCTime();
        resultSerMs += m.resultSerializationTime();
        resultBytes += m.resultSize();
        if (info.gettingResultTime() > 0) {
            gettingResultMs += info.finishTime() - info.gettingResultTime();
        }
    }

    /** The engine's times of one step, heard after its job and update: the tasks heard next are the next step's. */
    synchronized void step(StepTimes times) {
        int step = times.step();
        if (step >= firstTimed && step <= lastTimed) {
            broadcastMs += times.broadcastMs();
            jobMs += times.jobMs();
            updateMs += times.updateMs();
            largestTaskValues = Math.max(largestTaskValues, times.taskResultValues());
            timedSteps++;
        }
        counting = step >= firstTimed - 1 && step < lastTimed;
    }

    /**
     * The split over the timed steps, whose walls summed to {@code wallMs}.
     *
     * @return the shares (of slots × wall) and the per-step weights, in the line's order
     */
    synchronized Map<String, Object> split(double wallMs) {
        double slotMs = slots * wallMs;
        Map<String, Object> out = new LinkedHashMap<>();
        double compute = (runMs - gcMs - resultSerMs) / slotMs;
        out.put("executor_compute", share(compute));
        out.put("executor_gc", share(gcMs / slotMs));
        out.put("result_transfer", share((resultSerMs + gettingResultMs) / slotMs));
        out.put("driver_update", share(updateMs / wallMs));
        out.put("broadcast", share(broadcastMs / wallMs));
        out.put("idle_in_job", share(1 - compute - (gcMs + resultSerMs + gettingResultMs) / slotMs
            - (updateMs + broadcastMs) / wallMs));
        out.put("non_compute", share(1 - compute));
        out.put("job_ms_per_step", share(jobMs / Math.max(1, timedSteps)));
        out.put("task_results_mb_per_step", share(resultBytes / Math.max(1, timedSteps) / 1e6));
        out.put("largest_task_result_values", largestTaskValues);
        return out;
    }

    private static double share(double x) {
        return Math.round(x * 1000.0) / 1000.0;
    }
}

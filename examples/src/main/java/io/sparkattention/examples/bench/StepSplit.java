package io.sparkattention.examples.bench;

import io.sparkattention.ml.training.StepTimes;
import org.apache.spark.executor.TaskMetrics;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.TaskInfo;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where a fine-tuning step's wall time goes ({@code bench --fine-tune}'s {@code step_split}): the
 * engine's driver-side times of each step ({@link StepTimes}: broadcast, job, update) beside the
 * tasks' own metrics, heard as a {@link SparkListener}, over the timed steps. A timed interval runs
 * from one step's loss to the next (the benchmark's clock): step s − 1's update, then step s's
 * broadcast and job; so the split takes the jobs and broadcasts of steps firstJob … lastJob and
 * the updates of steps firstJob − 1 … lastJob − 1. Shares of the task slots' time (slots × wall):
 * <pre>
 *   executor_compute   Σ tasks' run time − their GC time − their results' serialisation
 *   executor_gc        Σ tasks' GC time (in local mode the JVM's pauses, which the driver shares)
 *   result_transfer    Σ results' serialisation and their fetch to the driver
 *   driver_update      the mean gradient, clipping and AdamW on the driver (every slot idle)
 *   broadcast          making and destroying the parameters' broadcast (every slot idle)
 *   idle_in_job        the rest: slots waiting within a job (scheduling, the last task, the group tasks)
 * </pre>
 * with {@code non_compute} = 1 − executor_compute, and what a step's task results weighed.
 *
 * <p>A task counts when it was launched inside the timed steps' window ({@link #timedFrom},
 * {@link #timedUntil}: wall-clock marks the benchmark sets between steps), not when its end is
 * heard: the listener bus delivers task ends asynchronously, so a step's last task ends may
 * arrive after the engine reported the step, and counting by arrival would put a warm-up step's
 * tasks into the timed ones or leave the last timed step's out (one step in eight: ±0.1 of
 * executor_compute). The benchmark drains the bus before {@link #split}.
 */
final class StepSplit extends SparkListener {

    private final int slots;
    private final int firstJob;
    private final int lastJob;
    /** Every task end heard, in arrival order. */
    private final List<TaskTimes> tasks = new ArrayList<>();
    private double broadcastMs, jobMs, updateMs;
    private long largestTaskValues;
    private int timedSteps;
    /** The timed window's ends, epoch milliseconds (Spark's clock for task launches). */
    private long windowStart = Long.MAX_VALUE, windowEnd = Long.MAX_VALUE;

    /** One task's metrics, by its launch time. */
    private record TaskTimes(long launched, double runMs, double gcMs, double resultSerMs, double gettingResultMs,
                             double resultBytes) {
    }

    /**
     * @param slots      the cluster's task slots
     * @param firstJob the first timed step's job (the warm-up steps' jobs before it do not count;
     *                 the update of the step before it does)
     * @param lastJob  the last timed step's job
     */
    StepSplit(int slots, int firstJob, int lastJob) {
        this.slots = slots;
        this.firstJob = firstJob;
        this.lastJob = lastJob;
    }

    @Override
    public synchronized void onTaskEnd(SparkListenerTaskEnd end) {
        TaskMetrics m = end.taskMetrics();
        TaskInfo info = end.taskInfo();
        if (m == null) {
            return;
        }
        double gettingResult = info.gettingResultTime() > 0 ? info.finishTime() - info.gettingResultTime() : 0;
        tasks.add(new TaskTimes(info.launchTime(), m.executorRunTime(), m.jvmGCTime(), m.resultSerializationTime(),
            gettingResult, m.resultSize()));
    }

    /** The timed steps start now: step {@code firstJob − 1}'s update is next, step firstJob's job not yet submitted. */
    synchronized void timedFrom(long epochMillis) {
        windowStart = epochMillis;
    }

    /** The timed steps ended now: step {@code lastJob}'s job has returned. */
    synchronized void timedUntil(long epochMillis) {
        windowEnd = epochMillis;
    }

    /** The engine's times of one step, heard after its job and update. */
    synchronized void step(StepTimes times) {
        int step = times.step();
        if (step >= firstJob && step <= lastJob) {
            broadcastMs += times.broadcastMs();
            jobMs += times.jobMs();
            largestTaskValues = Math.max(largestTaskValues, times.taskResultValues());
            timedSteps++;
        }
        if (step >= firstJob - 1 && step < lastJob) {
            updateMs += times.updateMs();
        }
    }

    /**
     * The split over the timed steps, whose walls summed to {@code wallMs}.
     *
     * @return the shares (of slots × wall) and the per-step weights, in the line's order
     */
    synchronized Map<String, Object> split(double wallMs) {
        double slotMs = slots * wallMs;
        double runMs = 0, gcMs = 0, resultSerMs = 0, gettingResultMs = 0, resultBytes = 0;
        for (TaskTimes t : tasks) {
            if (t.launched() >= windowStart && t.launched() <= windowEnd) {
                runMs += t.runMs();
                gcMs += t.gcMs();
                resultSerMs += t.resultSerMs();
                gettingResultMs += t.gettingResultMs();
                resultBytes += t.resultBytes();
            }
        }
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

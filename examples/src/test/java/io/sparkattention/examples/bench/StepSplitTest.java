package io.sparkattention.examples.bench;

import io.sparkattention.ml.training.StepTimes;
import org.apache.spark.Success$;
import org.apache.spark.executor.ExecutorMetrics;
import org.apache.spark.executor.TaskMetrics;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.TaskInfo;
import org.apache.spark.scheduler.TaskLocality;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code step_split}: a task counts by when it was launched, inside or outside the timed steps'
 * window, whatever the order in which the listener bus delivers its end.
 */
class StepSplitTest {

    @Test
    void tasksCountByLaunchTimeNotByWhenTheirEndArrives() {
        // one warm-up step (0) and two timed steps (1, 2) on two slots; the window is [1,000, 3,000] ms
        StepSplit split = new StepSplit(2, 1, 2);
        split.onTaskEnd(task(100, 700));
        split.step(new StepTimes(0, 10, 800, 50, 7));
        // the warm-up step's second task ends only now, after the window opened: not counted
        split.timedFrom(1_000);
        split.onTaskEnd(task(110, 760));
        split.onTaskEnd(task(1_020, 800));
        split.onTaskEnd(task(1_021, 850));
        split.step(new StepTimes(1, 10, 900, 50, 7));
        split.onTaskEnd(task(2_020, 810));
        split.step(new StepTimes(2, 10, 900, 50, 7));
        split.timedUntil(3_000);
        // the last timed step's second task ends after the engine reported the step: counted
        split.onTaskEnd(task(2_021, 840));

        Map<String, Object> out = split.split(2_000);
        assertEquals((800 + 850 + 810 + 840) / 4_000.0, (double) out.get("executor_compute"), 0.0005);
        assertEquals(100 / 2_000.0, (double) out.get("driver_update"), 0.0005);
        assertEquals(20 / 2_000.0, (double) out.get("broadcast"), 0.0005);
        assertEquals(900.0, (double) out.get("job_ms_per_step"), 0.0005);
    }

    /** A successful task launched at {@code launched} (epoch ms) that ran {@code runMs}. */
    private static SparkListenerTaskEnd task(long launched, long runMs) {
        TaskInfo info = new TaskInfo(launched, 0, 0, 0, launched, "driver", "localhost", TaskLocality.PROCESS_LOCAL(),
            false);
        TaskMetrics metrics = new TaskMetrics();
        metrics.setExecutorRunTime(runMs);
        return new SparkListenerTaskEnd(0, 0, "ResultTask", Success$.MODULE$, info, new ExecutorMetrics(), metrics);
    }
}

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
        // a warm-up job (step 0), then timed intervals [1,000, 3,000] ms holding step 0's update and
        // step 1's job, then step 1's update and step 2's job
        StepSplit split = new StepSplit(2, 1, 2);
        split.onTaskEnd(task(100, 700));
        split.step(new StepTimes(0, 30, 800, 50, 7));
        // the warm-up job's second task ends only now, after the window opened: not counted
        split.timedFrom(1_000);
        split.onTaskEnd(task(110, 760));
        split.onTaskEnd(task(1_020, 800));
        split.onTaskEnd(task(1_021, 850));
        split.step(new StepTimes(1, 10, 900, 52, 7));
        split.onTaskEnd(task(2_020, 810));
        split.step(new StepTimes(2, 12, 910, 90, 7));
        split.timedUntil(3_000);
        // the last timed job's second task ends after the engine reported its step: counted
        split.onTaskEnd(task(2_021, 840));

        Map<String, Object> out = split.split(2_000);
        assertEquals((800 + 850 + 810 + 840) / 4_000.0, (double) out.get("executor_compute"), 0.0005);
        // the updates of steps 0 and 1 (step 2's comes after the last timed interval)
        assertEquals((50 + 52) / 2_000.0, (double) out.get("driver_update"), 0.0005);
        // the broadcasts and jobs of steps 1 and 2
        assertEquals((10 + 12) / 2_000.0, (double) out.get("broadcast"), 0.0005);
        assertEquals(905.0, (double) out.get("job_ms_per_step"), 0.0005);
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

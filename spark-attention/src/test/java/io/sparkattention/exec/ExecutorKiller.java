package io.sparkattention.exec;

import org.apache.spark.Success$;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerExecutorRemoved;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.SparkListenerStageCompleted;
import org.apache.spark.scheduler.SparkListenerStageSubmitted;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.SparkListenerTaskStart;
import org.apache.spark.scheduler.StageInfo;
import scala.jdk.javaapi.CollectionConverters;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Kills one executor JVM with SIGKILL while a job runs, at one of two moments: when the first task
 * of a stage that reads a shuffle starts ({@link #arm}: the job's first stage is complete and its
 * output lives on the executors), or when the first task of the n-th job after arming starts
 * ({@link #armAtJob}: one of a sequence of jobs, such as the steps of an iterative fit). The
 * executor running that task is killed by its process id. The kill is driven by the jobs' own
 * events, not by a timer. Also counts what the scheduler saw.
 */
final class ExecutorKiller extends SparkListener {

    private final String appId;
    private final Set<Integer> shuffleReadingStages = ConcurrentHashMap.newKeySet();
    private final Set<Integer> targetJobStages = ConcurrentHashMap.newKeySet();
    private volatile boolean armed;
    /** Whether the kill waits for a job ({@link #armAtJob}) rather than a shuffle read ({@link #arm}). */
    private volatile boolean atJob;
    /** Jobs still to start before the target job; negative once it started. */
    private volatile int jobsBeforeTarget;
    /** When {@link #armAtJob} was called: earlier jobs whose start events arrive late are not counted. */
    private volatile long armedAtMillis;
    private volatile String targetJobName;
    private volatile String killedExecutor;
    private volatile long killedPid = -1;
    private volatile long killedAtNanos;
    private volatile long removedAtNanos;
    private volatile long lastFailureAtNanos;
    final AtomicInteger failedTasks = new AtomicInteger();
    final AtomicInteger removedExecutors = new AtomicInteger();
    final AtomicInteger stageRetries = new AtomicInteger();

    ExecutorKiller(String appId) {
        this.appId = appId;
    }

    /** Kill at the next shuffle-reading task start. */
    void arm() {
        atJob = false;
        armed = true;
    }

    /**
     * Kill at the first task start of the job that starts after {@code jobsToSkip} other jobs
     * (0: the next job). Jobs count from this call on (by their start time, as the listener bus
     * may deliver an earlier job's start event late).
     */
    void armAtJob(int jobsToSkip) {
        if (jobsToSkip < 0) {
            throw new IllegalArgumentException("jobsToSkip must be >= 0, got " + jobsToSkip);
        }
        targetJobStages.clear();
        jobsBeforeTarget = jobsToSkip;
        armedAtMillis = System.currentTimeMillis();
        atJob = true;
        armed = true;
    }

    /** The name (call site) of the first stage of the job {@link #armAtJob} targeted, once it started. */
    String targetJobName() {
        return targetJobName;
    }

    String killedExecutor() {
        return killedExecutor;
    }

    long killedPid() {
        return killedPid;
    }

    long killedAtNanos() {
        return killedAtNanos;
    }

    /** When the scheduler first reported an executor removed (0: never). */
    long removedAtNanos() {
        return removedAtNanos;
    }

    /** When the last failed task ended (0: none): after it, only re-runs remain. */
    long lastFailureAtNanos() {
        return lastFailureAtNanos;
    }

    @Override
    public void onStageSubmitted(SparkListenerStageSubmitted event) {
        if (!event.stageInfo().parentIds().isEmpty()) {
            shuffleReadingStages.add(event.stageInfo().stageId());
        }
    }

    @Override
    public void onJobStart(SparkListenerJobStart event) {
        if (!armed || !atJob || jobsBeforeTarget < 0 || event.time() < armedAtMillis) {
            return;
        }
        if (jobsBeforeTarget-- == 0) {
            List<StageInfo> stages = CollectionConverters.asJava(event.stageInfos());
            // The job's name is its result stage's (the last one), as Spark's UI names jobs; earlier
            // stages may be shuffles the job only reads, named after the code that built them.
            StageInfo result = stages.get(0);
            for (StageInfo stage : stages) {
                targetJobStages.add(stage.stageId());
                if (stage.stageId() > result.stageId()) {
                    result = stage;
                }
            }
            targetJobName = result.name();
        }
    }

    @Override
    public synchronized void onTaskStart(SparkListenerTaskStart event) {
        Set<Integer> targets = atJob ? targetJobStages : shuffleReadingStages;
        if (!armed || !targets.contains(event.stageId())) {
            return;
        }
        armed = false;
        String executor = event.taskInfo().executorId();
        ProcessHandle process = executorProcess(appId, executor)
            .orElseThrow(() -> new IllegalStateException("no process for executor " + executor + " of " + appId));
        killedExecutor = executor;
        killedPid = process.pid();
        killedAtNanos = System.nanoTime();
        process.destroyForcibly();  // SIGKILL on Unix
    }

    @Override
    public void onTaskEnd(SparkListenerTaskEnd event) {
        if (!(event.reason() instanceof Success$)) {
            failedTasks.incrementAndGet();
            lastFailureAtNanos = System.nanoTime();
        }
    }

    @Override
    public void onStageCompleted(SparkListenerStageCompleted event) {
        if (event.stageInfo().attemptNumber() > 0) {
            stageRetries.incrementAndGet();
        }
    }

    @Override
    public void onExecutorRemoved(SparkListenerExecutorRemoved event) {
        if (removedExecutors.getAndIncrement() == 0) {
            removedAtNanos = System.nanoTime();
        }
    }

    /**
     * The executor JVM of {@code executorId} in application {@code appId}, found by its command line
     * in {@code /proc} (Linux; {@code ProcessHandle.Info} drops the arguments of long command lines).
     */
    static Optional<ProcessHandle> executorProcess(String appId, String executorId) {
        return ProcessHandle.allProcesses().filter(p -> {
            String cmd = commandLine(p.pid());
            return cmd.contains("CoarseGrainedExecutorBackend") && cmd.contains(" --app-id " + appId + " ")
                && cmd.contains(" --executor-id " + executorId + " ");
        }).findFirst();
    }

    private static String commandLine(long pid) {
        try {
            byte[] raw = Files.readAllBytes(Paths.get("/proc", Long.toString(pid), "cmdline"));
            return new String(raw, StandardCharsets.UTF_8).replace('\0', ' ');
        } catch (IOException | SecurityException e) {
            return "";  // gone, or not ours
        }
    }
}

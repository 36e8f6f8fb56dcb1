package io.sparkattention.examples.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerStageCompleted;
import org.apache.spark.scheduler.SparkListenerStageSubmitted;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.StageInfo;
import org.apache.spark.storage.RDDInfo;
import scala.jdk.javaapi.CollectionConverters;

import java.io.PrintStream;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * {@code fine-tune}'s progress before its first step, as JSON lines on stdout beside the step
 * lines: {@code {"setup": "tokenizing the rows", "tasks_done": 3, "tasks": 8}}, printed when a
 * Spark stage of the setup starts and every {@link RowProgress#INTERVAL_SECONDS} while it runs.
 * The phase is read from the stage's RDDs, which {@code BertClassifier} names: its input rows
 * (read and, with {@code --text-col}, tokenized) and its training rows (laid out with the frozen
 * layers' states, computed once). Stops at the first step ({@link #close}).
 */
final class SetupProgress extends SparkListener implements AutoCloseable {

    /** The names of {@code BertClassifier}'s cached RDDs, as its training data sets them. */
    private static final String INPUT_ROWS = "BertClassifier input rows";
    private static final String TRAINING_ROWS = "BertClassifier training rows";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final SparkContext sc;
    private final PrintStream out;
    private final boolean tokenizes;
    private final boolean frozen;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "setup progress");
        t.setDaemon(true);
        return t;
    });
    private String phase;
    private int stageId = -1;
    private int tasks;
    private int done;
    private boolean closed;

    private SetupProgress(SparkContext sc, PrintStream out, boolean tokenizes, boolean frozen) {
        this.sc = sc;
        this.out = out;
        this.tokenizes = tokenizes;
        this.frozen = frozen;
    }

    /**
     * Starts reporting.
     *
     * @param tokenizes whether the rows are texts tokenized in the fit
     * @param frozen    whether some layers stay frozen (their states are computed once)
     */
    static SetupProgress start(SparkContext sc, PrintStream out, boolean tokenizes, boolean frozen) {
        SetupProgress progress = new SetupProgress(sc, out, tokenizes, frozen);
        sc.addSparkListener(progress);
        long seconds = RowProgress.INTERVAL_SECONDS;
        progress.timer.scheduleAtFixedRate(progress::print, seconds, seconds, TimeUnit.SECONDS);
        return progress;
    }

    /** A phase the command itself starts (outside the stage's jobs), printed at once. */
    synchronized void phase(String name) {
        phase = name;
        stageId = -1;
        tasks = 0;
        done = 0;
        printLine();
    }

    @Override
    public synchronized void onStageSubmitted(SparkListenerStageSubmitted submitted) {
        StageInfo info = submitted.stageInfo();
        String named = phaseOf(info);
        phase = named != null ? named : phase != null ? phase : "reading the input";
        stageId = info.stageId();
        tasks = info.numTasks();
        done = 0;
        printLine();
    }

    @Override
    public synchronized void onTaskEnd(SparkListenerTaskEnd end) {
        if (end.stageId() == stageId && end.taskInfo().successful()) {
            done++;
        }
    }

    @Override
    public synchronized void onStageCompleted(SparkListenerStageCompleted completed) {
        if (completed.stageInfo().stageId() == stageId) {
            done = tasks;
        }
    }

    /** The phase a stage belongs to, from the RDDs it computes; null for a stage of no named phase. */
    private String phaseOf(StageInfo info) {
        boolean input = false;
        for (RDDInfo rdd : CollectionConverters.asJava(info.rddInfos())) {
            if (rdd.name().startsWith(TRAINING_ROWS)) {
                return frozen ? "computing the frozen layers' states" : "laying out the training rows";
            }
            input |= rdd.name().startsWith(INPUT_ROWS);
        }
        return input ? (tokenizes ? "reading and tokenizing the rows" : "reading the rows") : null;
    }

    private synchronized void print() {
        if (phase != null && stageId >= 0) {
            printLine();
        }
    }

    private void printLine() {
        if (closed) {
            return;
        }
        ObjectNode line = JSON.createObjectNode().put("setup", phase);
        if (stageId >= 0) {
            line.put("tasks_done", done).put("tasks", tasks);
        }
        out.println(line.toString());
        out.flush();
    }

    /** Stops: the first step has run, or the fit failed. */
    @Override
    public synchronized void close() {
        closed = true;
        timer.shutdownNow();
        sc.removeSparkListener(this);
    }
}

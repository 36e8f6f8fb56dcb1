package io.sparkattention.examples.common;

import org.apache.spark.SparkContext;
import org.apache.spark.SparkExecutorInfo;
import org.apache.spark.sql.SparkSession;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The outputs of one run, from the output-safety check before Spark starts to their publication:
 * each is checked ({@link OutputGuard}), kept clear of the run's inputs and of the other outputs,
 * written in a hidden staging directory ({@link StagedOutput}) and published only when the
 * command calls {@link #publish}; closing discards what was not published, so a failed or
 * interrupted run (Ctrl-C: a shutdown hook) leaves the earlier outputs, or nothing. Commands get
 * one from their {@code cli.OutputOptions} mixin:
 *
 * <pre>{@code
 * try (Outputs out = output.plan(OutputKind.sparkDirectory()).input("--input", input).check()) {
 *     SparkSession spark = master.start("sdpa", out); // starts Spark, checks an hdfs:// output
 *     rows.write().parquet(out.main().uri());      // write into the staged output
 *     out.publish();                               // swap it in; without this, close() discards it
 * }
 * }</pre>
 */
public final class Outputs implements AutoCloseable {

    /** How long a discarded Spark output waits for tasks of an aborted job still writing into it. */
    private static final long IDLE_WAIT_MILLIS = 10_000;

    private final String command;
    private final boolean overwrite;
    private final Map<String, String> planned = new LinkedHashMap<>();
    private final Map<String, OutputKind> kinds = new LinkedHashMap<>();
    private final Map<String, String> inputs = new LinkedHashMap<>();
    private final List<StagedOutput> outputs = new ArrayList<>();
    private boolean localOnly;
    private SparkSession spark;
    /** Discards the staged outputs when the JVM stops before {@link #close} (Ctrl-C). */
    private final Thread onExit = new Thread(() -> outputs.forEach(StagedOutput::discard), "discard staged outputs");

    public Outputs(String command, boolean overwrite) {
        this.command = command;
        this.overwrite = overwrite;
    }

    /** Adds an output named by {@code option}; a null path (an output not asked for) is skipped. */
    public Outputs add(String option, String path, OutputKind kind) {
        if (path != null) {
            planned.put(option, path);
            kinds.put(option, kind);
        }
        return this;
    }

    /** An input of the run (file or directory), which no output may be, hold or lie in; null is ignored. */
    public Outputs input(String option, String path) {
        if (path != null) {
            inputs.put(option, path);
        }
        return this;
    }

    /** The command writes with java.nio: an output on another file system is refused. */
    public Outputs localOnly() {
        localOnly = true;
        return this;
    }

    /**
     * Checks every output before Spark starts: the output-safety rule for local ones, and no
     * output the same path as another or inside it.
     *
     * @throws BadInputException naming the option, the path and what is wrong
     */
    public Outputs check() {
        for (Map.Entry<String, String> o : planned.entrySet()) {
            String option = o.getKey(), path = o.getValue();
            if (localOnly && OutputGuard.isRemote(path)) {
                throw new BadInputException(option + " " + path + ": spark-attention " + command + " writes to the "
                    + "local file system only; write locally and copy the result");
            }
            OutputGuard guard = OutputGuard.of(option, path, kinds.get(option)).overwrite(overwrite);
            inputs.forEach(guard::input);
            outputs.add(new StagedOutput(option, path, kinds.get(option), guard.check()));
        }
        for (int i = 0; i < outputs.size(); i++) {
            for (int j = 0; j < outputs.size(); j++) {
                clash(outputs.get(i), outputs.get(j), i < j);
            }
        }
        Runtime.getRuntime().addShutdownHook(onExit);
        return this;
    }

    private static void clash(StagedOutput a, StagedOutput b, boolean first) {
        if (a == b || a.local == null || b.local == null) {
            return;
        }
        if (first && a.local.equals(b.local)) {
            throw new BadInputException(b.option + " " + b.given + " is the same path as " + a.option + " " + a.given
                + ": give each output a name of its own");
        }
        if (!a.local.equals(b.local) && b.local.startsWith(a.local)) {
            throw new BadInputException(b.option + " " + b.given + " lies in " + a.option + " " + a.given
                + ", which is replaced as a whole: choose a path outside it");
        }
    }

    /**
     * Runs with Spark: an output on another file system gets its store from Spark's Hadoop
     * configuration and the checks that store allows (an existing output replaced only with
     * {@code --overwrite}, and only a marked output directory of this tool); a discarded output
     * waits for the executors' last tasks before it is deleted.
     */
    public Outputs attach(SparkSession session) {
        spark = session;
        for (StagedOutput o : outputs) {
            if (o.isRemote()) {
                try {
                    o.onStore(OutputSwap.hadoop(o.given, session.sparkContext().hadoopConfiguration()));
                    checkRemote(o);
                } catch (IOException e) {
                    throw new BadInputException(o.option + " " + o.given + ": " + e.getMessage(), e);
                }
            }
        }
        return this;
    }

    private void checkRemote(StagedOutput o) throws IOException {
        OutputSwap.Store store = o.store();
        if (!store.exists(o.target())) {
            return;
        }
        if (!overwrite) {
            throw new BadInputException(o.option + " " + o.given + " already exists (--overwrite replaces an earlier "
                + "output of spark-attention)");
        }
        if (!o.kind.isDirectory() || !store.exists(store.child(o.target(), OutputKind.MARKER))) {
            throw new BadInputException(o.option + " " + o.given + " exists and is not replaced: it is not an output "
                + "directory of spark-attention (no " + OutputKind.MARKER + " marker file)");
        }
    }

    /** The output of {@code --output} (the first added). */
    public StagedOutput main() {
        return outputs.get(0);
    }

    /** The output named by {@code option}, or null when it was not asked for. */
    public StagedOutput get(String option) {
        for (StagedOutput o : outputs) {
            if (o.option.equals(option)) {
                return o;
            }
        }
        return null;
    }

    /** Publishes every output, in the order they were added. */
    public void publish() throws IOException {
        for (StagedOutput o : outputs) {
            if (!o.isPublished()) {
                o.publish(command);
            }
        }
    }

    /** Discards every output not published (after Spark's running tasks end, when Spark wrote). */
    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(onExit);
        } catch (IllegalStateException | IllegalArgumentException e) {
            // The JVM is stopping (the hook runs), or check() did not get as far as adding it.
        }
        boolean pending = outputs.stream().anyMatch(o -> !o.isPublished());
        if (!pending) {
            return;
        }
        outputs.forEach(StagedOutput::discard);
        if (spark != null) {
            // Tasks of a failed job that were still running may write after the job was aborted.
            waitForIdleExecutors(spark.sparkContext());
            outputs.forEach(StagedOutput::discard);
        }
    }

    private static void waitForIdleExecutors(SparkContext sc) {
        long deadline = System.currentTimeMillis() + IDLE_WAIT_MILLIS;
        while (System.currentTimeMillis() < deadline) {
            int running = 0;
            for (SparkExecutorInfo info : sc.statusTracker().getExecutorInfos()) {
                running += info.numRunningTasks();
            }
            if (running == 0 && sc.statusTracker().getActiveStageIds().length == 0) {
                return;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

}

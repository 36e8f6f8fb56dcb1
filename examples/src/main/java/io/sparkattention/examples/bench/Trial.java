package io.sparkattention.examples.bench;

/**
 * One contender on one configuration, set up and ready to run: what {@link Interleaved} times.
 * Its inputs are allocated when it is created and released by {@link #close()}.
 */
public interface Trial extends AutoCloseable {

    /** Runs once, untimed or timed (the caller times it). */
    void runOnce();

    /** True when one run is short enough that untimed runs until its times settle cost little. */
    boolean shortRun();

    /** The JSON line of this contender, given its timed repetitions. */
    BenchResult result(double[] wallMs, double[] cpuMs);

    @Override
    void close();
}

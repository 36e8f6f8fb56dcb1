package io.sparkattention.examples.demo;

import java.io.PrintStream;
import java.util.Locale;

/** One line per phase of a job: number, name, what it produced, how long it took. */
final class Progress {

    private final PrintStream out;
    private final int phases;
    private final long start = System.nanoTime();
    private long phaseStart = start;
    private int done;

    Progress(PrintStream out, int phases) {
        this.out = out;
        this.phases = phases;
    }

    /** Ends the current phase with a line like {@code [2/7] tokenize: 12,034 passages, 512,877 tokens (3.1 s)}. */
    void phase(String name, String result) {
        long now = System.nanoTime();
        done++;
        out.printf(Locale.ROOT, "[%d/%d] %-10s %s (%.1f s)%n", done, phases, name, result, (now - phaseStart) / 1e9);
        out.flush();
        phaseStart = now;
    }

    /** Seconds since the job started. */
    double elapsedSeconds() {
        return (System.nanoTime() - start) / 1e9;
    }

    static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }
}

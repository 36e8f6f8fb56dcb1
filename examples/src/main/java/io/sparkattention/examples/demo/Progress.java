package io.sparkattention.examples.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** One line per phase of a job: number, name, what it produced, how long it took. */
final class Progress {

    private final PrintStream out;
    private final int phases;
    private final long start = System.nanoTime();
    private final Map<String, Double> seconds = new LinkedHashMap<>();
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
        double elapsed = (now - phaseStart) / 1e9;
        seconds.put(name, elapsed);
        out.printf(Locale.ROOT, "[%d/%d] %-10s %s (%.1f s)%n", done, phases, name, result, elapsed);
        out.flush();
        phaseStart = now;
    }

    /** Seconds since the job started. */
    double elapsedSeconds() {
        return (System.nanoTime() - start) / 1e9;
    }

    /** The phases ended so far and their seconds (two decimals), in order. */
    ObjectNode phaseSeconds(ObjectMapper json) {
        ObjectNode node = json.createObjectNode();
        seconds.forEach((name, s) -> node.put(name, Math.round(s * 100.0) / 100.0));
        return node;
    }

    static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }
}

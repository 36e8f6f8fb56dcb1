package io.sparkattention.examples.scaling;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Runs each scaling point in a fresh JVM ({@link ScalingProbe}): same Java, class path and module
 * flags as this one, its own heap limit, the serial collector and no thread-local allocation
 * buffers (so heap usage is counted per object), and the environment (BLAS threads) inherited.
 */
public final class ScalingRunner {

    /** JVM options of this JVM that the children must not inherit: they set their own heap and GC. */
    private static final String[] NOT_INHERITED = {"-Xmx", "-Xms", "-Xss", "-XX:MaxHeapSize", "-XX:InitialHeapSize",
        "-XX:+Use", "-XX:-Use", "-agentlib", "-agentpath", "-javaagent", "-Xdebug", "-Xrunjdwp", "-XX:MaxRAM"};

    private final String heap;
    private final int repeat;
    private final long warmupMillis;

    /**
     * A runner.
     *
     * @param heap         maximum heap of each child, as for {@code -Xmx} (e.g. "2g")
     * @param repeat       timed passes per point
     * @param warmupMillis warm-up time per point
     */
    public ScalingRunner(String heap, int repeat, long warmupMillis) {
        if (!heap.toLowerCase(Locale.ROOT).matches("[1-9][0-9]*[kmg]?")) {
            throw new IllegalArgumentException("--heap must look like 512m or 2g, got '" + heap + "'");
        }
        this.heap = heap;
        this.repeat = repeat;
        this.warmupMillis = warmupMillis;
    }

    /**
     * Measures one point in its own JVM.
     *
     * @param impl the implementation
     * @param n    sequence length
     * @param d    head dimension
     * @return the point; status {@code failed} with the child's last error line if it printed none
     * @throws IOException if the child cannot be started
     * @throws InterruptedException if interrupted while waiting for it
     */
    public ScalingPoint measure(Implementation impl, int n, int d) throws IOException, InterruptedException {
        Path errors = Files.createTempFile("spark-attention-scaling", ".log");
        try {
            ProcessBuilder builder = new ProcessBuilder(command(impl, n, d))
                .redirectError(errors.toFile())
                .redirectInput(ProcessBuilder.Redirect.PIPE);
            Process child = builder.start();
            child.getOutputStream().close();
            String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int code = child.waitFor();
            String json = lastJsonLine(out);
            if (json != null) {
                return ScalingPoint.parse(json);
            }
            return ScalingPoint.failed(impl, n, d, "measuring JVM exited with code " + code + ": "
                + lastLine(Files.readString(errors, StandardCharsets.UTF_8)));
        } finally {
            Files.deleteIfExists(errors);
        }
    }

    List<String> command(Implementation impl, int n, int d) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (inherited(arg)) {
                cmd.add(arg);
            }
        }
        cmd.add("-Xmx" + heap);
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-XX:-UseTLAB");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(ScalingProbe.class.getName());
        cmd.add(impl.id());
        cmd.add(Integer.toString(n));
        cmd.add(Integer.toString(d));
        cmd.add(Integer.toString(repeat));
        cmd.add(Long.toString(warmupMillis));
        return cmd;
    }

    private static boolean inherited(String arg) {
        for (String prefix : NOT_INHERITED) {
            if (arg.startsWith(prefix)) {
                return false;
            }
        }
        return true;
    }

    private static String lastJsonLine(String out) {
        String[] lines = out.split("\n");
        for (int i = lines.length - 1; i >= 0; i--) {
            if (lines[i].startsWith("{")) {
                return lines[i].strip();
            }
        }
        return null;
    }

    private static String lastLine(String text) {
        String[] lines = text.strip().split("\n");
        for (int i = lines.length - 1; i >= 0; i--) {
            String line = lines[i].strip();
            // A Java error's first line ("Exception in thread ...", "java.lang.X: ...") says more than "at ...".
            if (!line.isEmpty() && !line.startsWith("at ") && !line.startsWith("...")) {
                return line;
            }
        }
        return "(no output)";
    }
}

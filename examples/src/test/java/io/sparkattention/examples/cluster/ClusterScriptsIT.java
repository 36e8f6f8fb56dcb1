package io.sparkattention.examples.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The README's cluster commands, as a user runs them: {@code start-cluster.sh 2 1 1g}, a
 * {@code bench --spark} job through the launcher on {@code --master spark://...} (so the jars are
 * shipped to executors that have only Spark's own), and {@code stop-cluster.sh}, which must leave
 * no daemon behind. Runs on free ports and its own pid/log directory, so it does not disturb a
 * cluster a developer has running.
 */
class ClusterScriptsIT {

    private static final Path ROOT = Paths.get(System.getProperty("spark.attention.root", "..")).toAbsolutePath()
        .normalize();

    @Test
    @DisplayName("start-cluster.sh, a job on spark://127.0.0.1:PORT, stop-cluster.sh")
    void startRunStop() throws Exception {
        Path dir = ROOT.resolve("examples/target/it-cluster");
        int masterPort = freePort();
        int webuiPort = freePortRun(3);
        Map<String, String> env = Map.of("SPARK_MASTER_PORT", String.valueOf(masterPort),
            "SPARK_MASTER_WEBUI_PORT", String.valueOf(webuiPort), "SPARK_CLUSTER_DIR", dir.toString());
        List<Long> pids = new ArrayList<>();
        try {
            Result start = run(env, 300, "examples/cluster/start-cluster.sh", "2", "1", "1g");
            assertEquals(0, start.code, start::toString);
            assertTrue(start.stdout.contains("cluster up: spark://127.0.0.1:" + masterPort), start::toString);
            for (String name : new String[] {"master", "worker-1", "worker-2"}) {
                pids.add(Long.parseLong(Files.readString(dir.resolve(name + ".pid")).trim()));
            }

            Result bench = run(env, 600, "examples/bin/spark-attention", "bench", "--spark", "--strategy", "head",
                "--seq-len", "512", "--head-dim", "16", "--batch-heads", "2", "--repeat", "1",
                "--master", "spark://127.0.0.1:" + masterPort);
            assertEquals(0, bench.code, bench::toString);
            JsonNode json = new ObjectMapper().readTree(lastJsonLine(bench));
            assertEquals("spark", json.get("mode").asText());
            assertEquals("head", json.get("resolved_strategy").asText());
            assertEquals(2, json.get("executors").asInt(), "both workers ran an executor");
            assertTrue(Double.isFinite(json.get("checksum").asDouble()));
        } finally {
            Result stop = run(env, 120, "examples/cluster/stop-cluster.sh");
            assertEquals(0, stop.code, stop::toString);
        }
        for (long pid : pids) {
            assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "daemon " + pid + " stopped");
        }
    }

    private static String lastJsonLine(Result result) {
        String last = null;
        for (String line : result.stdout.split("\n")) {
            if (line.startsWith("{")) {
                last = line;
            }
        }
        if (last == null) {
            throw new AssertionError("no JSON line on stdout:\n" + result.stdout + "\nstderr:\n" + result.stderr);
        }
        return last;
    }

    /** The exit code, stdout and stderr of a command run from the project root. */
    private static final class Result {
        final int code;
        final String stdout;
        final String stderr;

        Result(int code, String stdout, String stderr) {
            this.code = code;
            this.stdout = stdout;
            this.stderr = stderr;
        }

        @Override
        public String toString() {
            return "exit " + code + "\nstdout:\n" + stdout + "\nstderr:\n" + stderr;
        }
    }

    private static Result run(Map<String, String> env, long timeoutSeconds, String... command)
        throws IOException, InterruptedException {
        Path out = Files.createTempFile("cluster-it", ".out");
        Path err = Files.createTempFile("cluster-it", ".err");
        ProcessBuilder pb = new ProcessBuilder(command).directory(ROOT.toFile())
            .redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        boolean finished = p.waitFor(timeoutSeconds, TimeUnit.SECONDS);
        if (!finished) {
            p.destroyForcibly().waitFor();
        }
        Result r = new Result(finished ? p.exitValue() : -1, Files.readString(out, StandardCharsets.UTF_8),
            Files.readString(err, StandardCharsets.UTF_8));
        Files.delete(out);
        Files.delete(err);
        if (!finished) {
            throw new AssertionError(String.join(" ", command) + " did not finish within " + timeoutSeconds + " s: " + r);
        }
        return r;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** The first of {@code n} consecutive free ports (the master's UI, then one per worker). */
    private static int freePortRun(int n) {
        for (int attempt = 0; attempt < 100; attempt++) {
            int base = ThreadLocalRandom.current().nextInt(20_000, 40_000);
            boolean free = true;
            for (int i = 0; i < n && free; i++) {
                try (ServerSocket s = new ServerSocket(base + i, 1, InetAddress.getLoopbackAddress())) {
                    free = s.getLocalPort() == base + i;
                } catch (IOException e) {
                    free = false;
                }
            }
            if (free) {
                return base;
            }
        }
        throw new IllegalStateException("no run of " + n + " free ports");
    }
}

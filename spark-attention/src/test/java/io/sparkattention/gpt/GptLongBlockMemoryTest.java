package io.sparkattention.gpt;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 42's scale target: a 2,048-token block trains (loss and gradient, dropout on) in a 2 GiB
 * heap on the default demo model (6 layers, 384 wide, 6 heads, byte vocabulary). The causal
 * attention runs the tiled kernel forward and backward (nothing L×L is kept; the probabilities'
 * dropout mask is regenerated), so the step's memory grows linearly with the block: what it holds
 * after a full collection (records, pending sums, prepared weights) stays under half the heap (913
 * MiB when written). Run in a child JVM with {@code -Xmx2g}, since the test JVM's heap is larger.
 */
class GptLongBlockMemoryTest {

    @Test
    void aBlockOf2048TokensTrainsInATwoGibHeap() throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of("-Xmx2g", "--add-modules=jdk.incubator.vector", "-cp",
            System.getProperty("java.class.path"), LongBlockStep.class.getName(), "6", "384", "6", "2048"));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("OPENBLAS_NUM_THREADS", "1");
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(10, TimeUnit.MINUTES), "the child JVM did not end");
        assertEquals(0, process.exitValue(), output);
        Matcher m = Pattern.compile("loss_per_token=(\\S+) grad_norm=(\\S+) live_heap_mib=(\\d+)").matcher(output);
        assertTrue(m.find(), output);
        System.out.println("2,048-token block under -Xmx2g: " + m.group());
        double loss = Double.parseDouble(m.group(1));
        assertTrue(Math.abs(loss - Math.log(256)) < 0.5, "an initialised model's loss near log 256: " + output);
        assertTrue(Double.parseDouble(m.group(2)) > 0, output);
        assertTrue(Long.parseLong(m.group(3)) < 1024, "the step holds under half the heap: " + output);
    }
}

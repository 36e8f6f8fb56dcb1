package io.sparkattention.io;

import io.sparkattention.gpt.GptDecoder;
import io.sparkattention.gpt.GptFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A model directory written by Python (fixtures/gpt/write_hf_directory.py through /usr/bin/python3
 * with PyTorch and numpy): Hugging Face's names under {@code transformer.}, the attn.bias and
 * masked_bias buffers, a tied lm_head.weight, {@code n_inner: null}; read by
 * {@link GptModelFiles#read}, its logits PyTorch's float64 ones within 1e-5 of each row's largest.
 * Skipped, saying why, where /usr/bin/python3 cannot import torch.
 */
class GptPythonDirectoryTest {

    private static final Path PYTHON = Paths.get("/usr/bin/python3");

    @TempDir
    Path dir;

    @Test
    void aDirectoryWrittenByPythonIsReadWithPyTorchsLogits() throws IOException, InterruptedException,
        URISyntaxException {
        assumeTrue(Files.isExecutable(PYTHON), "no /usr/bin/python3");
        assumeTrue(run(PYTHON.toString(), "-c", "import torch, numpy") == 0,
            "/usr/bin/python3 cannot import torch and numpy (Debian's python3-torch, python3-numpy)");
        Path script = Paths.get(GptPythonDirectoryTest.class.getResource("/fixtures/gpt/write_hf_directory.py")
            .toURI());
        assertEquals(0, run(PYTHON.toString(), script.toString(), dir.toString()), "the script ran");
        GptDecoder decoder = GptModelFiles.read(dir);
        assertEquals(96, decoder.config().inner(), "n_inner null is 4·n_embd");
        assertTrue(decoder.config().tiedHead());
        SafeTensors expected = SafeTensors.read(dir.resolve("expected.safetensors"));
        int[] ids = expected.ints("ids");
        double[] logits = expected.doubles("logits");
        int V = decoder.config().vocabSize();
        float[] ours = decoder.logits(ids);
        for (int t = 0; t < ids.length; t++) {
            GptFixture.assertRowClose(Arrays.copyOfRange(logits, t * V, (t + 1) * V), ours, t * V, 1e-5,
                "position " + t);
        }
    }

    private int run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not finish in 120 s");
        }
        if (p.exitValue() != 0 && command.length > 2 && !command[1].equals("-c")) {
            System.err.println(output);
        }
        return p.exitValue();
    }
}

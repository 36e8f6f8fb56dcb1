package io.sparkattention.examples.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sparkattention.testing.SparkTestSession;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code demo-lm}'s parts on the bundled Austen novels: the held-out blocks and the byte bigram
 * baseline, and a short run of a small model (the demo's recipe, a tenth of its work: short of the
 * bigram yet) that learns the bytes (under 4 bits per byte held out, from 8), finds real Austen
 * sentences more likely than the same words shuffled, and writes what the demo writes.
 */
class LanguageModelDemoTest {

    private static final String CORPUS = Path.of("data", "austen").toAbsolutePath().toString();

    @TempDir
    Path dir;

    @Test
    @DisplayName("every 10th block held out; the bigram fitted on the others scores them at 3 to 4 bits per byte, "
        + "below the 8 of a uniform byte")
    void blocksAndBigram() throws IOException {
        List<int[]> training = new ArrayList<>();
        List<int[]> heldOut = new ArrayList<>();
        long bytes = LanguageModelDemo.blocks(CORPUS, 128, training, heldOut);
        assertEquals(bytes / 128, training.size() + heldOut.size());
        assertEquals((training.size() + heldOut.size()) / 10, heldOut.size());
        double bits = ByteBigram.fit(training).bitsPerByte(heldOut);
        assertTrue(bits > 3 && bits < 4, "bigram " + bits);
        String shuffled = LanguageModelDemo.shuffled(LanguageModelDemo.SENTENCES.get(0), 7);
        assertNotEquals(LanguageModelDemo.SENTENCES.get(0), shuffled);
        assertEquals(LanguageModelDemo.SENTENCES.get(0).length(), shuffled.length(), "the same words");
    }

    @Test
    @DisplayName("a short run: held-out bits per byte under 4, each Austen sentence more likely than its words "
        + "shuffled, the model directory, samples and summary written")
    void shortRun() throws IOException {
        LanguageModelDemo.Settings s = new LanguageModelDemo.Settings();
        s.corpus = CORPUS;
        s.output = dir;
        s.layers = 1;
        s.width = 64;
        s.heads = 4;
        s.blockSize = 64;
        s.maxIter = 250;
        s.rowsPerStep = 16;
        s.evalEvery = 125;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        ObjectNode summary = new LanguageModelDemo(SparkTestSession.get(),
            new PrintStream(printed, true, StandardCharsets.UTF_8)).run(s);
        assertTrue(summary.get("val_bits_per_byte").asDouble() < 4, summary.toString());
        for (JsonNode sentence : summary.get("sentences")) {
            assertTrue(sentence.get("log_prob").asDouble() > sentence.get("shuffled_log_prob").asDouble(),
                sentence.toString());
        }
        assertEquals(3, summary.get("samples").size());
        for (String file : new String[] {"model/config.json", "model/model.safetensors", "model/tokenizer.json",
            "samples.txt", "summary.json"}) {
            assertTrue(Files.isRegularFile(dir.resolve(file)), file);
        }
        assertTrue(printed.toString(StandardCharsets.UTF_8).contains("step  250/250"), printed.toString());
    }
}

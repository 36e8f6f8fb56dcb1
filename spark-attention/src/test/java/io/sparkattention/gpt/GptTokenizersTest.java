package io.sparkattention.gpt;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The shipped tokenizers through DJL's HuggingFaceTokenizer: GPT-2's gives gpt-3-encoder's ids
 * for every case of gpt2-tokenizer-cases.jsonl (no special tokens added), keeps
 * {@code <|endoftext|>} whole as 50256 and decodes the ids back to the text; the byte tokenizer
 * maps UTF-8 bytes to ids 0 … 255 and back, a character cut at the row's end decoding to U+FFFD.
 */
class GptTokenizersTest {

    @BeforeAll
    static void offline() {
        if (System.getProperty("ai.djl.offline") == null) {
            System.setProperty("ai.djl.offline", "true");
        }
    }

    private static HuggingFaceTokenizer load(String resource) throws IOException {
        return HuggingFaceTokenizer.newInstance(new ByteArrayInputStream(GptTokenizers.read(resource)),
            Map.of("addSpecialTokens", "false", "padding", "DO_NOT_PAD", "truncation", "DO_NOT_TRUNCATE"));
    }

    @Test
    void gpt2EncodesEveryCaseToItsIdsAndDecodesThemBack() throws IOException {
        List<JsonNode> cases = new ArrayList<>();
        ObjectMapper json = new ObjectMapper();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(GptTokenizersTest.class
            .getResourceAsStream("/fixtures/gpt/gpt2-tokenizer-cases.jsonl"), StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (!line.isBlank()) {
                    cases.add(json.readTree(line));
                }
            }
        }
        assertEquals(true, cases.size() >= 8, "the cases file has its cases");
        try (HuggingFaceTokenizer t = load(GptTokenizers.GPT2)) {
            for (JsonNode c : cases) {
                String text = c.get("text").asText();
                long[] expected = new long[c.get("ids").size()];
                for (int i = 0; i < expected.length; i++) {
                    expected[i] = c.get("ids").get(i).asLong();
                }
                Encoding e = t.encode(text);
                assertArrayEquals(expected, e.getIds(), text);
                assertEquals(text, t.decode(expected, false), "decoding the ids of " + text);
            }
            long[] eot = t.encode("Hello<|endoftext|> world").getIds();
            assertArrayEquals(new long[] {15496, 50256, 995}, eot, "<|endoftext|> kept whole");
            assertEquals("Hello<|endoftext|> world", t.decode(eot, false));
        }
    }

    @Test
    void theByteTokenizerMapsUtf8BytesToIdsAndBack() throws IOException {
        try (HuggingFaceTokenizer t = load(GptTokenizers.BYTES)) {
            String text = "A tab\t, naïve €5 and 🙂 \n end";
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            long[] ids = t.encode(text).getIds();
            assertEquals(bytes.length, ids.length);
            for (int i = 0; i < bytes.length; i++) {
                assertEquals(bytes[i] & 0xff, ids[i], "byte " + i);
            }
            assertEquals(text, t.decode(ids));
            byte[] euro = "€".getBytes(StandardCharsets.UTF_8);
            long[] cut = {'o', 'k', euro[0] & 0xff, euro[1] & 0xff};
            assertEquals("ok\uFFFD", t.decode(cut), "a character cut at the row's end decodes to U+FFFD");
        }
        assertThrows(IllegalArgumentException.class, () -> GptTokenizers.read("tokenizer.json"));
    }
}

package io.sparkattention.ml;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sparkattention.ml.feature.RotaryPositionalEncoding;
import io.sparkattention.ml.feature.SinusoidalPositionalEncoding;
import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.Params;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Stages saved by an earlier version still load, with every param they were saved with: the
 * stages under {@code saved/e4ebe8c/} in the test resources were written by commit e4ebe8c, before
 * the params of the attention stages and the positional encodings moved into param-set objects.
 * A param renamed or dropped since would fail here, naming it.
 */
class SavedStagesLoadTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    static {
        SparkTestSession.get();
    }

    @Test
    @DisplayName("ScaledDotProductAttention saved with every param set loads with those values")
    void scaledDotProductAttention() throws Exception {
        assertLoads("scaled-dot-product-attention", ScaledDotProductAttention::load);
    }

    @Test
    @DisplayName("MultiHeadAttention (the estimator) loads with its saved params")
    void multiHeadAttention() throws Exception {
        assertLoads("multi-head-attention", MultiHeadAttention::load);
    }

    @Test
    @DisplayName("MultiHeadAttentionModel loads with its saved params and the weights of the fixture it was made from")
    void multiHeadAttentionModel() throws Exception {
        MultiHeadAttentionModel loaded = assertLoads("multi-head-attention-model", MultiHeadAttentionModel::load);
        MultiHeadAttentionModel fixture = MultiHeadAttentionTest.fixtureModel("mha_self_basic", 4);
        assertArrayEquals(fixture.weights().outBias(), loaded.weights().outBias());
        assertEquals(fixture.weights().parameterCount(), loaded.weights().parameterCount());
    }

    @Test
    @DisplayName("SinusoidalPositionalEncoding loads with its saved params")
    void sinusoidal() throws Exception {
        assertLoads("sinusoidal-positional-encoding", SinusoidalPositionalEncoding::load);
    }

    @Test
    @DisplayName("RotaryPositionalEncoding loads with its saved params")
    void rotary() throws Exception {
        assertLoads("rotary-positional-encoding", RotaryPositionalEncoding::load);
    }

    /**
     * Loads the saved stage and checks that each param in its metadata, set or default, exists
     * under the same name and has the saved value (compared as MLlib's JSON encoding of it).
     */
    private static <T extends Params> T assertLoads(String name, Function<String, T> load)
        throws IOException, URISyntaxException {
        Path dir = Path.of(SavedStagesLoadTest.class.getResource("/saved/e4ebe8c/" + name).toURI());
        JsonNode metadata = metadata(dir.resolve("metadata"));
        T stage = load.apply(dir.toString());
        assertEquals(metadata.get("class").asText(), stage.getClass().getName());
        assertEquals(metadata.get("uid").asText(), stage.uid());
        assertValues(stage, metadata.get("paramMap"), true);
        assertValues(stage, metadata.get("defaultParamMap"), false);
        return stage;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void assertValues(Params stage, JsonNode saved, boolean set) throws IOException {
        for (Iterator<Map.Entry<String, JsonNode>> it = saved.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> entry = it.next();
            String where = stage.getClass().getSimpleName() + "." + entry.getKey();
            assertTrue(stage.hasParam(entry.getKey()), where + " is no longer a param");
            Param param = stage.getParam(entry.getKey());
            Object value = set ? stage.getOrDefault(param) : stage.getDefault(param).get();
            if (set) {
                assertTrue(stage.isSet(param), where + " was saved as set");
            }
            assertEquals(entry.getValue(), JSON.readTree(param.jsonEncode(value)), where);
        }
    }

    private static JsonNode metadata(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            Path part = files.filter(p -> p.getFileName().toString().startsWith("part-")).findFirst()
                .orElseThrow(() -> new AssertionError("no metadata part file in " + dir));
            return JSON.readTree(Files.readString(part));
        }
    }
}

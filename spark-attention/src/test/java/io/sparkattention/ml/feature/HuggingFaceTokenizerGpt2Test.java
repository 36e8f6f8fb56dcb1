package io.sparkattention.ml.feature;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * The tokenizer stage on GPT-2's byte-level BPE ({@code io/sparkattention/gpt/gpt2-tokenizer.json},
 * the library's copy of GPT-2's real tokenizer): an independent encoder's ids for awkward texts, no
 * special tokens added, {@code <|endoftext|>} one id, and no truncation with
 * {@link HuggingFaceTokenizer#NO_TRUNCATION}.
 */
class HuggingFaceTokenizerGpt2Test {

    private static final String GPT2_TOKENIZER = "/io/sparkattention/gpt/gpt2-tokenizer.json";
    private static final StructType TEXTS = new StructType().add("text", DataTypes.StringType);

    private static HuggingFaceTokenizer gpt2() throws IOException {
        try (InputStream in = HuggingFaceTokenizer.class.getResourceAsStream(GPT2_TOKENIZER)) {
            assertNotNull(in, GPT2_TOKENIZER + " is on the class path");
            return HuggingFaceTokenizer.fromBytes(in.readAllBytes()).setMaxLength(HuggingFaceTokenizer.NO_TRUNCATION)
                .setTruncatedCol("truncated");
        }
    }

    private static List<Row> tokenize(HuggingFaceTokenizer tokenizer, List<String> texts) {
        SparkSession spark = SparkTestSession.get();
        List<Row> rows = new ArrayList<>();
        texts.forEach(t -> rows.add(RowFactory.create(t)));
        Dataset<Row> df = spark.createDataFrame(rows, TEXTS);
        return tokenizer.transform(df).collectAsList();
    }

    @Test
    @DisplayName("gpt2-tokenizer-cases: gpt-3-encoder's ids for every text, nothing added, nothing cut")
    void idsOfAnIndependentEncoder() throws IOException {
        List<String> texts = new ArrayList<>();
        List<List<Integer>> expected = new ArrayList<>();
        ObjectMapper json = new ObjectMapper();
        try (InputStream in = getClass().getResourceAsStream("/fixtures/gpt/gpt2-tokenizer-cases.jsonl")) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.isBlank()) {
                    continue;
                }
                JsonNode c = json.readTree(line);
                texts.add(c.get("text").asText());
                List<Integer> ids = new ArrayList<>();
                c.get("ids").forEach(id -> ids.add(id.asInt()));
                expected.add(ids);
            }
        }
        List<Row> out = tokenize(gpt2(), texts);
        for (int i = 0; i < texts.size(); i++) {
            assertEquals(expected.get(i), out.get(i).getList(1), texts.get(i));
            assertFalse(out.get(i).getBoolean(2));
        }
    }

    @Test
    @DisplayName("<|endoftext|> stays one id (50256); a text of 3,001 tokens keeps them all with NO_TRUNCATION")
    void specialTokenAndNoTruncation() throws IOException {
        List<Row> out = tokenize(gpt2(), List.of("Hello world<|endoftext|>", "word ".repeat(3000)));
        assertEquals(List.of(15496, 995, 50256), out.get(0).getList(1));
        assertEquals(3001, out.get(1).getList(1).size());
        assertFalse(out.get(1).getBoolean(2));
    }
}

package io.sparkattention.ml.feature;

import io.sparkattention.testing.RootCause;
import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.ml.Pipeline;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.PipelineStage;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The tokenizer stage against Hugging Face's own ids for all-MiniLM-L6-v2 (minilm_reference.jsonl). */
class HuggingFaceTokenizerTest {

    private static final StructType TEXTS = new StructType().add("id", DataTypes.IntegerType)
        .add("text", DataTypes.StringType);
    private static final int CLS = 101;
    private static final int SEP = 102;

    private final SparkSession spark = SparkTestSession.get();

    private Dataset<Row> texts(String... texts) {
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < texts.length; i++) {
            rows.add(RowFactory.create(i, texts[i]));
        }
        return spark.createDataFrame(rows, TEXTS);
    }

    private static int[] ints(Row row, String column) {
        List<Integer> list = row.getList(row.fieldIndex(column));
        return list.stream().mapToInt(Integer::intValue).toArray();
    }

    private static String longText(int words) {
        return "word ".repeat(words).trim();
    }

    @Test
    @DisplayName("ids and tokens equal Hugging Face's on the reference texts (accents, CJK, emoji, [UNK], one letter)")
    void idsAndTokensEqualTheReference() {
        List<MiniLmReference.Case> cases = MiniLmReference.cases().stream().map(MiniLmReference::huggingFace).toList();
        Dataset<Row> df = texts(cases.stream().map(MiniLmReference.Case::text).toArray(String[]::new)).repartition(2);
        HuggingFaceTokenizer tokenizer = HuggingFaceTokenizer.fromBytes(MiniLmReference.tokenizerJson())
            .setTokensCol("tokens").setTruncatedCol("truncated");
        Dataset<Row> out = tokenizer.transform(df);
        assertEquals(tokenizer.transformSchema(TEXTS), out.schema());
        String plan = out.queryExecution().optimizedPlan().toString();
        assertEquals(1, plan.split("hf_tokenize", -1).length - 1, "each text is tokenized once: " + plan);
        List<Row> rows = out.orderBy("id").collectAsList();
        for (int i = 0; i < cases.size(); i++) {
            Row row = rows.get(i);
            assertArrayEquals(cases.get(i).inputIds(), ints(row, "input_ids"), cases.get(i).text());
            assertArrayEquals(cases.get(i).tokens(), row.getList(row.fieldIndex("tokens")).toArray(new String[0]));
            assertFalse(row.getBoolean(row.fieldIndex("truncated")));
        }
    }

    @Test
    @DisplayName("truncation at maxLength keeps [CLS] … [SEP], says so, and is not capped at the file's limits")
    void truncatesAtMaxLength() {
        MiniLmReference.Case first = MiniLmReference.cases().get(0);
        HuggingFaceTokenizer tokenizer = HuggingFaceTokenizer.fromBytes(MiniLmReference.tokenizerJson())
            .setTruncatedCol("truncated");
        Dataset<Row> df = texts(first.text(), longText(300), longText(700));

        List<Row> at10 = tokenizer.setMaxLength(10).transform(df).orderBy("id").collectAsList();
        int[] expected = new int[10];
        System.arraycopy(first.inputIds(), 0, expected, 0, 9);
        expected[9] = SEP;
        assertArrayEquals(expected, ints(at10.get(0), "input_ids"));
        assertTrue(at10.get(0).getBoolean(2 + 1));

        List<Row> byDefault = tokenizer.setMaxLength(HuggingFaceTokenizer.DEFAULT_MAX_LENGTH).transform(df)
            .orderBy("id").collectAsList();
        assertEquals(first.inputIds().length, ints(byDefault.get(0), "input_ids").length);
        assertFalse(byDefault.get(0).getBoolean(3));
        int[] long300 = ints(byDefault.get(1), "input_ids");
        assertEquals(256, long300.length);
        assertEquals(CLS, long300[0]);
        assertEquals(SEP, long300[255]);
        assertTrue(byDefault.get(1).getBoolean(3));

        // Beyond the file's 128 and DJL's 512: the stage's limit holds.
        List<Row> at600 = tokenizer.setMaxLength(600).transform(df).orderBy("id").collectAsList();
        assertEquals(302, ints(at600.get(1), "input_ids").length);
        assertFalse(at600.get(1).getBoolean(3));
        assertEquals(600, ints(at600.get(2), "input_ids").length);
        assertTrue(at600.get(2).getBoolean(3));
    }

    @Test
    @DisplayName("every maxLength from 2 truncates exactly: the untruncated ids' prefix with [SEP] last, flagged")
    void everyMaxLengthTruncatesExactly() {
        List<String> texts = new ArrayList<>();
        MiniLmReference.cases().forEach(c -> texts.add(c.text()));
        texts.add("");
        texts.add("a");
        texts.add(longText(14));
        texts.add(longText(253));
        texts.add(longText(254));
        texts.add(longText(255));
        texts.add(longText(700));
        Dataset<Row> df = texts(texts.toArray(new String[0])).repartition(2);
        HuggingFaceTokenizer tokenizer = HuggingFaceTokenizer.fromBytes(MiniLmReference.tokenizerJson())
            .setTruncatedCol("truncated");
        List<Row> whole = tokenizer.setMaxLength(10_000).transform(df).orderBy("id").collectAsList();
        for (int maxLength : new int[] {2, 3, 4, 16, 255, 256, 512}) {
            List<Row> rows = tokenizer.setMaxLength(maxLength).transform(df).orderBy("id").collectAsList();
            int truncated = 0;
            for (int i = 0; i < texts.size(); i++) {
                int[] natural = ints(whole.get(i), "input_ids");
                int[] ids = ints(rows.get(i), "input_ids");
                String what = "maxLength " + maxLength + ", text " + i + " of " + natural.length + " tokens";
                assertEquals(Math.min(natural.length, maxLength), ids.length, what);
                assertEquals(natural.length > maxLength, rows.get(i).getBoolean(rows.get(i).fieldIndex("truncated")),
                    what);
                assertEquals(CLS, ids[0], what);
                assertEquals(SEP, ids[ids.length - 1], what);
                int[] prefix = java.util.Arrays.copyOf(natural, ids.length);
                prefix[ids.length - 1] = SEP;
                assertArrayEquals(prefix, ids, what);
                truncated += natural.length > maxLength ? 1 : 0;
            }
            assertTrue(truncated > 0, "maxLength " + maxLength + " truncates some text");
        }
    }

    @Test
    @DisplayName("maxLength below 2 (room for [CLS] and [SEP]) is refused, naming the param and the value")
    void maxLengthBelowTwoIsRefused() {
        HuggingFaceTokenizer tokenizer = HuggingFaceTokenizer.fromBytes(MiniLmReference.tokenizerJson());
        for (int bad : new int[] {1, 0, -3}) {
            String message = assertThrows(IllegalArgumentException.class, () -> tokenizer.setMaxLength(bad))
                .getMessage();
            assertTrue(message.contains("maxLength") && message.contains("given invalid value " + bad),
                message);
            assertEquals(HuggingFaceTokenizer.DEFAULT_MAX_LENGTH, tokenizer.getMaxLength());
        }
        assertThrows(IllegalArgumentException.class,
            () -> tokenizer.copy(new org.apache.spark.ml.param.ParamMap().put(tokenizer.maxLength(), 1)));
        assertEquals(2, tokenizer.setMaxLength(2).getMaxLength());
    }

    @Test
    @DisplayName("an empty text is [CLS] [SEP]")
    void emptyTextIsClsSep() {
        Row row = HuggingFaceTokenizer.fromBytes(MiniLmReference.tokenizerJson()).setTokensCol("tokens")
            .transform(texts("")).first();
        assertArrayEquals(new int[] {CLS, SEP}, ints(row, "input_ids"));
        assertEquals(List.of("[CLS]", "[SEP]"), row.getList(row.fieldIndex("tokens")));
    }

    @Test
    @DisplayName("null text: error names column and row (or its rowIdCol), skip drops the row, keep gives null outputs")
    void nullTextFollowsHandleInvalid() {
        Dataset<Row> df = texts("a", null, "b").repartition(1).sortWithinPartitions("id");
        HuggingFaceTokenizer tokenizer = HuggingFaceTokenizer.fromBytes(MiniLmReference.tokenizerJson())
            .setTokensCol("tokens").setTruncatedCol("truncated");
        Exception e = assertThrows(Exception.class, () -> tokenizer.transform(df).collectAsList());
        String message = RootCause.message(e);
        assertTrue(message.contains("row 1") && message.contains("column text is null"), message);

        Dataset<Row> numbered = df.withColumn("id", functions.col("id").plus(100));
        String named = RootCause.message(assertThrows(Exception.class,
            () -> tokenizer.setRowIdCol("id").transform(numbered).collectAsList()));
        assertTrue(named.startsWith("row 101: column text is null"), named);
        tokenizer.setRowIdCol("");

        List<Row> skipped = tokenizer.setHandleInvalid("skip").transform(df).orderBy("id").collectAsList();
        assertEquals(2, skipped.size());
        assertEquals(2, skipped.get(1).getInt(0));

        List<Row> kept = tokenizer.setHandleInvalid("keep").transform(df).orderBy("id").collectAsList();
        assertEquals(3, kept.size());
        Row nullRow = kept.get(1);
        assertNull(nullRow.get(2));
        assertNull(nullRow.get(3));
        assertNull(nullRow.get(4));
    }

    @Test
    @DisplayName("saved in a Pipeline, the stage carries its tokenizer.json: it loads after the file is gone")
    void savesAndLoadsInAPipeline(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("tokenizer.json");
        Files.write(file, MiniLmReference.tokenizerJson());
        HuggingFaceTokenizer tokenizer = HuggingFaceTokenizer.fromPath(file.toString()).setInputCol("text")
            .setOutputCol("ids").setTokensCol("pieces").setMaxLength(12).setHandleInvalid("keep");
        Dataset<Row> df = texts(MiniLmReference.cases().get(1).text(), null, "");
        PipelineModel fitted = new Pipeline().setStages(new PipelineStage[] {tokenizer}).fit(df);
        String saved = dir.resolve("pipeline").toString();
        fitted.write().save(saved);
        Files.delete(file);

        PipelineModel loaded = PipelineModel.load(saved);
        HuggingFaceTokenizer back = (HuggingFaceTokenizer) loaded.stages()[0];
        assertEquals(tokenizer.uid(), back.uid());
        assertEquals(12, back.getMaxLength());
        assertEquals("keep", back.getHandleInvalid());
        assertEquals("pieces", back.getTokensCol());
        assertArrayEquals(MiniLmReference.tokenizerJson(), back.tokenizerJson());
        assertEquals(fitted.transform(df).orderBy("id").collectAsList(),
            loaded.transform(df).orderBy("id").collectAsList());
        assertEquals(12, ints(loaded.transform(df).orderBy("id").first(), "ids").length);
    }

    @Test
    @DisplayName("a malformed or missing tokenizer.json is an error naming the file")
    void badFilesAreNamed(@TempDir Path dir) throws IOException {
        Path bad = dir.resolve("broken-tokenizer.json");
        Files.write(bad, "{\"model\": {\"type\": \"WordPiece\"".getBytes(StandardCharsets.UTF_8));
        IllegalArgumentException malformed = assertThrows(IllegalArgumentException.class,
            () -> HuggingFaceTokenizer.fromPath(bad.toString()));
        assertTrue(malformed.getMessage().startsWith(bad + " is not a Hugging Face tokenizer.json"),
            malformed.getMessage());

        Path missing = dir.resolve("missing.json");
        UncheckedIOException absent = assertThrows(UncheckedIOException.class,
            () -> HuggingFaceTokenizer.fromPath(missing.toString()));
        assertTrue(absent.getMessage().contains(missing.toString()), absent.getMessage());
    }

    @Test
    @DisplayName("schema errors name the column: missing, not a string, output already there")
    void schemaErrorsNameTheColumn() {
        HuggingFaceTokenizer tokenizer = HuggingFaceTokenizer.fromBytes(MiniLmReference.tokenizerJson());
        String missing = assertThrows(IllegalArgumentException.class,
            () -> tokenizer.setInputCol("body").transformSchema(TEXTS)).getMessage();
        assertTrue(missing.startsWith("column body (inputCol) does not exist"), missing);
        String notText = assertThrows(IllegalArgumentException.class,
            () -> tokenizer.setInputCol("id").transformSchema(TEXTS)).getMessage();
        assertEquals("column id (inputCol): expected string, found int", notText);
        String clash = assertThrows(IllegalArgumentException.class,
            () -> tokenizer.setInputCol("text").setOutputCol("id").transformSchema(TEXTS)).getMessage();
        assertTrue(clash.startsWith("output column id already exists"), clash);
        String empty = assertThrows(IllegalStateException.class,
            () -> new HuggingFaceTokenizer().transformSchema(TEXTS)).getMessage();
        assertTrue(empty.contains("has no tokenizer"), empty);
    }

    @Test
    @DisplayName("one native tokenizer per JVM per file content and length, shared by copies of the stage")
    void oneNativeTokenizerPerFile() {
        byte[] json = MiniLmReference.tokenizerJson();
        String hash = NativeTokenizers.contentHash(json);
        HuggingFaceTokenizer.fromBytes(json);
        assertSame(NativeTokenizers.get(hash, 256, () -> json, "a"),
            NativeTokenizers.get(hash, 256, () -> {
                throw new AssertionError("the file is read again");
            }, "b"));
        assertEquals("true", System.getProperty(NativeTokenizers.OFFLINE_PROPERTY));
    }
}

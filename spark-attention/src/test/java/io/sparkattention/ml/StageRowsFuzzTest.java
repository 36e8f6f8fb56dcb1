package io.sparkattention.ml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.sparkattention.rows.RowDataException;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Any row a JSON-lines or Parquet scan can produce under the declared schema either goes through
 * an attention stage — an output with one row per query — or fails with a
 * {@link RowDataException} whose message names the problem. Nothing else is thrown, and a row
 * decodes alike as Spark's generic values (a JSON scan) and as its unsafe binary form (Parquet,
 * a cache, a shuffle).
 *
 * <p>Checked-in inputs: {@code src/test/resources/io/sparkattention/ml/StageRowsFuzzTestInputs/}.
 */
class StageRowsFuzzTest {

    private static final List<StructType> JSON_SCHEMAS = List.of(FuzzStages.SHARED, FuzzStages.PER_HEAD);
    private static final List<StructType> ROW_SCHEMAS = List.of(FuzzStages.SHARED, FuzzStages.PER_HEAD,
        FuzzStages.FLAT);

    @FuzzTest(maxDuration = "10s")
    @DisplayName("any JSON line Spark parses goes through every stage, or fails with a RowDataException")
    @DictionaryEntries({"\"query\"", "\"key\"", "\"value\"", "\"key_length\"", "\"attn_mask\"", "\"attn_bias\"",
        "[[", "]]", "],[", "true", "false", "null", "NaN", "-Infinity", "1e39", "-0.0"})
    void jsonLinesGoThroughTheStagesOrFailWithRowDataException(byte[] bytes) {
        String line = new String(bytes, StandardCharsets.UTF_8);
        for (StructType schema : JSON_SCHEMAS) {
            for (InternalRow row : Parsers.json(schema).parse(line)) {
                for (StageRow stage : FuzzStages.over(schema)) {
                    check(stage, row);
                }
            }
        }
    }

    @FuzzTest(maxDuration = "10s")
    @DisplayName("any Catalyst row of the schemas goes through every stage alike as generic and unsafe values, or fails"
        + " with a RowDataException")
    void catalystRowsGoThroughTheStagesOrFailWithRowDataException(FuzzedDataProvider data) {
        StructType schema = ROW_SCHEMAS.get(data.consumeInt(0, ROW_SCHEMAS.size() - 1));
        InternalRow row = FuzzedRows.row(data, schema);
        for (StageRow stage : FuzzStages.over(schema)) {
            check(stage, row);
        }
    }

    @FuzzTest(maxDuration = "10s")
    @DisplayName("any array<vector> row goes through the stage, or fails with a RowDataException")
    void vectorRowsGoThroughTheStageOrFailWithRowDataException(FuzzedDataProvider data) {
        InternalRow row = FuzzedRows.row(data, FuzzStages.VECTORS);
        for (StageRow stage : FuzzStages.over(FuzzStages.VECTORS)) {
            check(stage, row);
        }
    }

    @Test
    @DisplayName("the seam reaches the kernel: a well-formed JSON line gives every stage an output of L rows")
    void aWellFormedLineGoesThroughEveryStage() {
        String line = "{\"query\": [[1, 0, 0.5, 2], [0, 1, 1, -1], [2, 2, 0, 0]],"
            + " \"key\": [[1, 1, 1, 1], [0, 0, 1, 0], [1, 0, 0, 0]],"
            + " \"value\": [[1, 2, 3, 4], [5, 6, 7, 8], [0, 0, 0, 1]], \"key_length\": 2,"
            + " \"attn_mask\": [[true, true, true], [true, false, true], [false, true, true]],"
            + " \"attn_bias\": [[0, -1, 0], [0, 0, 0], [1, 0, -2]]}";
        for (StageRow stage : FuzzStages.over(FuzzStages.SHARED)) {
            List<InternalRow> rows = Parsers.json(FuzzStages.SHARED).parse(line);
            assertEquals(1, rows.size());
            String outcome = outcome(stage, rows.get(0));
            assertTrue(outcome.startsWith("[["), outcome);
        }
    }

    /** The stage on the row as generic values and as an unsafe row: the same outcome, an allowed one. */
    static void check(StageRow stage, InternalRow row) {
        String generic = outcome(stage, row);
        String unsafe = outcome(stage, Parsers.unsafe(stage.schema()).apply(row));
        assertEquals(generic, unsafe, "generic and unsafe forms of one row");
    }

    /** What the stage makes of the row: its output, or its error without the row's position. */
    static String outcome(StageRow stage, InternalRow row) {
        InternalRow out;
        try {
            out = stage.apply(row);
        } catch (RowDataException e) {
            String message = e.getMessage();
            assertFalse(message == null || message.isBlank(), "a RowDataException without a message");
            String problem = message.substring(message.indexOf(": ") + 2);
            assertFalse(problem.isBlank(), () -> "a RowDataException without a problem: " + message);
            return "refused: " + problem;
        }
        if (row.isNullAt(0)) {
            assertNull(out, "a null query gives a null output");
            return "null";
        }
        assertEquals(row.getArray(0).numElements(), out.getArray(0).numElements(), "output rows = query rows");
        StringBuilder sb = new StringBuilder();
        DataType[] types = Arrays.stream(stage.outputStruct().fields()).map(StructField::dataType).toArray(DataType[]::new);
        for (int i = 0; i < types.length; i++) {
            sb.append(out.isNullAt(i) ? "null" : describe(out.getArray(i), (ArrayType) types[i])).append(';');
        }
        return sb.toString();
    }

    private static String describe(ArrayData array, ArrayType type) {
        if (!(type.elementType() instanceof ArrayType)) {
            return Arrays.toString(array.toFloatArray());
        }
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < array.numElements(); i++) {
            sb.append(describe(array.getArray(i), (ArrayType) type.elementType()));
        }
        return sb.append(']').toString();
    }

    /** One JSON parser and one unsafe projection per schema, reused by every input. */
    private static final class Parsers {
        private static final Map<StructType, JsonRows> JSON = new HashMap<>();
        private static final Map<StructType, UnsafeProjection> UNSAFE = new HashMap<>();

        static JsonRows json(StructType schema) {
            return JSON.computeIfAbsent(schema, JsonRows::new);
        }

        static UnsafeProjection unsafe(StructType schema) {
            return UNSAFE.computeIfAbsent(schema, UnsafeProjection::create);
        }
    }
}

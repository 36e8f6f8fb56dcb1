package io.sparkattention.ml;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.InputStream;

/**
 * Matrices of width 0 (rows of no values) in the query, key or value column, StageRowsFuzzTest's
 * finding in both the JSON and the Catalyst targets: each stage must give an output of L rows or
 * a RowDataException naming the column, as for any other unusable row. The fuzzers' inputs are in
 * {@code src/test/resources/io/sparkattention/ml/StageRowsFindings/} (JSON lines) and
 * {@code ZeroWidthMatrixFindingsTestInputs/} beside it (Catalyst rows, read by Jazzer).
 */
class ZeroWidthMatrixFindingsTest {

    private static final String FINDINGS = "/io/sparkattention/ml/StageRowsFindings/";

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"json_query_one_empty_row", "json_query_one_empty_row_extra_field", "json_value_zero_width",
        "json_key_zero_width_no_queries"})
    @DisplayName("a JSON line with a zero-width matrix gives an output or a RowDataException in every stage")
    void jsonLineWithAZeroWidthMatrix(String input) throws IOException {
        new StageRowsFuzzTest().jsonLinesGoThroughTheStagesOrFailWithRowDataException(bytes(input));
    }

    @Test
    @DisplayName("a query of four empty rows gives an output or a RowDataException in every stage")
    void fourEmptyQueryRows() {
        Object[] empty = new Object[4];
        for (int i = 0; i < empty.length; i++) {
            empty[i] = new GenericArrayData(new Object[0]);
        }
        InternalRow row = new GenericInternalRow(new Object[] {new GenericArrayData(empty), null, null, null, null, null});
        for (StageRow stage : FuzzStages.over(FuzzStages.SHARED)) {
            StageRowsFuzzTest.check(stage, row);
        }
    }

    @FuzzTest
    @DisplayName("the Catalyst target's zero-width inputs give an output or a RowDataException in every stage")
    void catalystTargetInputs(FuzzedDataProvider data) {
        new StageRowsFuzzTest().catalystRowsGoThroughTheStagesOrFailWithRowDataException(data);
    }

    private static byte[] bytes(String name) throws IOException {
        try (InputStream in = ZeroWidthMatrixFindingsTest.class.getResourceAsStream(FINDINGS + name)) {
            if (in == null) {
                throw new IOException("no finding input " + FINDINGS + name);
            }
            return in.readAllBytes();
        }
    }
}

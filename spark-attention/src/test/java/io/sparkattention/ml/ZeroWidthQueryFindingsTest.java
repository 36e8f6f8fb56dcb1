package io.sparkattention.ml;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;

/**
 * Queries of width 0 (L ≥ 1 rows of no values), StageRowsFuzzTest's finding in both the JSON and
 * the Catalyst targets: each stage must give an output of L rows or a RowDataException naming
 * the column, as for any other unusable row. The fuzzers' inputs are in
 * {@code src/test/resources/io/sparkattention/ml/StageRowsFindings/}.
 */
class ZeroWidthQueryFindingsTest {

    private static final String FINDINGS = "/io/sparkattention/ml/StageRowsFindings/";

    @Test
    @Disabled("finding: an L x 0 query passes StageJob.prepare (self-attention and the per-head stage) and reaches "
        + "FlashAttention.forward, whose Checks throw a plain IllegalArgumentException ('query has 0 values, "
        + "expected 1') that names no column and escapes RowFunctionExpression's row locating")
    @DisplayName("the JSON line {\"query\": [[]]} gives an output or a RowDataException in every stage")
    void jsonLineWithOneEmptyQueryRow() throws IOException {
        new StageRowsFuzzTest().jsonLinesGoThroughTheStagesOrFailWithRowDataException(bytes("json_query_one_empty_row"));
    }

    @Test
    @Disabled("finding: as above, from the Catalyst target: a 4 x 0 query in a row whose other columns are null")
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

    private static byte[] bytes(String name) throws IOException {
        try (InputStream in = ZeroWidthQueryFindingsTest.class.getResourceAsStream(FINDINGS + name)) {
            if (in == null) {
                throw new IOException("no finding input " + FINDINGS + name);
            }
            return in.readAllBytes();
        }
    }
}

package io.sparkattention.ml;

import io.sparkattention.testing.Fixtures;
import io.sparkattention.testing.Matrices;
import io.sparkattention.testing.MhaFixture;
import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;

import static io.sparkattention.testing.Close.assertClose;

/**
 * Every PyTorch {@code nn.MultiheadAttention} fixture through {@link MultiHeadAttentionModel}
 * built from the fixture's state_dict: output and weights (averaged or per head) within the
 * project's tolerance.
 */
class MultiHeadAttentionFixturesTest {

    private static final DataType MATRIX = DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.FloatType));
    private static final DataType BOOL_MATRIX =
        DataTypes.createArrayType(DataTypes.createArrayType(DataTypes.BooleanType));
    private final SparkSession spark = SparkTestSession.get();

    static String[] fixtures() {
        return Fixtures.MHA;
    }

    /** The fixture's rows: id, query, [key, value], [key_length], [attn_mask], [attn_bias]. */
    static Dataset<Row> rows(SparkSession spark, MhaFixture f, boolean maskFromPadding) {
        StructType schema = new StructType().add("id", DataTypes.IntegerType).add("query", MATRIX);
        if (!f.selfAttention) {
            schema = schema.add("key", MATRIX).add("value", MATRIX);
        }
        boolean padding = f.lengths != null;
        if (padding) {
            schema = maskFromPadding ? schema.add("attn_mask", BOOL_MATRIX)
                : schema.add("key_length", DataTypes.IntegerType);
        }
        if (f.bias(0) != null) {
            schema = schema.add("attn_bias", DataTypes.createArrayType(MATRIX));
        }
        List<Row> rows = new ArrayList<>();
        for (int b = 0; b < f.batch; b++) {
            List<Object> values = new ArrayList<>(List.of(b, f.query(b)));
            if (!f.selfAttention) {
                values.add(f.key(b));
                values.add(f.value(b));
            }
            if (padding) {
                values.add(maskFromPadding ? f.allowed(b) : f.lengths[b]);
            }
            if (f.bias(b) != null) {
                values.add(f.bias(b));
            }
            rows.add(RowFactory.create(values.toArray()));
        }
        return spark.createDataFrame(rows, schema).repartition(2);
    }

    /** The stage's settings for the fixture's case. */
    static MultiHeadAttentionModel configure(MultiHeadAttentionModel model, MhaFixture f, Dataset<Row> df) {
        List<String> columns = List.of(df.columns());
        model.setCausal(f.causal).setWeightsCol("attn_weights").setAverageWeights(f.averageWeights);
        if (!f.selfAttention) {
            model.setKeyCol("key").setValueCol("value");
        }
        if (columns.contains("key_length")) {
            model.setKeyLengthCol("key_length");
        }
        if (columns.contains("attn_mask")) {
            model.setAttnMaskCol("attn_mask");
        }
        if (columns.contains("attn_bias")) {
            model.setAttnBiasCol("attn_bias");
        }
        return model;
    }

    static void assertMatches(MhaFixture f, List<Row> out, String variant) {
        for (int b = 0; b < f.batch; b++) {
            Row row = out.get(b);
            String what = f.name + " " + variant + " row " + b;
            assertClose(what + " attn_output", f.expectedOutput(b),
                Matrices.flatten(row.getList(row.fieldIndex("attn_output"))));
            if (f.expectedWeights(b) != null) {
                List<?> w = row.getList(row.fieldIndex("attn_weights"));
                assertClose(what + " attn_weights", f.expectedWeights(b),
                    f.averageWeights ? Matrices.flatten(w) : Matrices.flatten3(w));
            }
        }
    }

    @ParameterizedTest
    @MethodSource("fixtures")
    @DisplayName("the model built from the fixture's state_dict gives PyTorch's output and weights")
    void modelFromStateDictMatchesPyTorch(String name) {
        MhaFixture f = MhaFixture.load(name);
        Dataset<Row> df = rows(spark, f, false);
        MultiHeadAttentionModel model = MultiHeadAttentionModel.fromSafeTensors(f.path.toString(), f.numHeads,
            "state_dict.");
        List<Row> out = configure(model, f, df).setBlockSize(32).transform(df).orderBy("id").collectAsList();
        assertMatches(f, out, "key lengths");
    }

    @ParameterizedTest
    @ValueSource(strings = {"mha_key_padding", "mha_causal_padding_long"})
    @DisplayName("PyTorch's key_padding_mask, converted to a boolean mask (true = may attend), gives the same numbers")
    void paddingAsBooleanMask(String name) {
        MhaFixture f = MhaFixture.load(name);
        Dataset<Row> df = rows(spark, f, true);
        MultiHeadAttentionModel model = MultiHeadAttentionModel.fromSafeTensors(f.path.toString(), f.numHeads,
            "state_dict");
        assertMatches(f, configure(model, f, df).transform(df).orderBy("id").collectAsList(), "boolean mask");
    }

    @Test
    @DisplayName("fit with initialWeightsPath loads the fixture (kdim/vdim ≠ E from the data) and matches PyTorch")
    void estimatorLoadsInitialWeights() {
        MhaFixture f = MhaFixture.load("mha_cross_kdim_vdim");
        Dataset<Row> df = rows(spark, f, false);
        MultiHeadAttentionModel model = new MultiHeadAttention().setNumHeads(f.numHeads).setKeyCol("key")
            .setValueCol("value").setInitialWeightsPath(f.path.toString()).setWeightsPrefix("state_dict.").fit(df);
        assertMatches(f, configure(model, f, df).transform(df).orderBy("id").collectAsList(), "fitted");
    }
}

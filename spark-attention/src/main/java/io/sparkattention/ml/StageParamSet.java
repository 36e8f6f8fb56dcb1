package io.sparkattention.ml;

import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamValidators;
import org.apache.spark.ml.param.Params;

import java.io.Serializable;

/**
 * The Param objects the stages share — input and output column, what invalid rows do, the column
 * that names rows in errors — created for one owner after its uid is set and exposed through
 * {@link InvalidRowParams}, {@link OutputColParams} and {@link StageParams}: one definition, one set
 * of defaults. A stage without a single input column (the attention stages read a query, a key
 * and a value) or without a single output column (rotary encoding writes two) holds only the
 * params it has: the others are null and their interface is not the stage's.
 */
public final class StageParamSet implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The values of {@code handleInvalid} for stages whose invalid rows are null inputs. */
    public static final String[] NULL_HANDLING = {"error", "skip", "keep"};
    /** The values of {@code handleInvalid} for stages whose invalid rows hold NaN or ±∞: reject, or propagate. */
    public static final String[] NON_FINITE_HANDLING = {"error", "keep"};
    /** The doc of {@code handleInvalid} with {@link #NON_FINITE_HANDLING}. */
    public static final String NON_FINITE_DOC =
        "NaN or infinite input values: error (reject the row, naming column and row) or keep (propagate)";

    final Param<String> inputCol;
    final Param<String> outputCol;
    final Param<String> handleInvalid;
    final Param<String> rowIdCol;

    /**
     * The params of a column-to-column stage ({@link StageParams}).
     *
     * @param owner          the stage
     * @param inputDoc       what the input column holds
     * @param inputDefault   its default name
     * @param outputDoc      what the output column holds
     * @param outputDefault  its default name
     * @param invalidDoc     what {@code handleInvalid}'s values do
     * @param invalidValues  its values; the first is the default
     */
    public StageParamSet(Params owner, String inputDoc, String inputDefault, String outputDoc, String outputDefault,
                         String invalidDoc, String[] invalidValues) {
        this(owner, new Param<>(owner, "inputCol", inputDoc), new Param<>(owner, "outputCol", outputDoc),
            invalidDoc, invalidValues);
        owner.setDefault(inputCol, inputDefault);
        owner.setDefault(outputCol, outputDefault);
    }

    private StageParamSet(Params owner, Param<String> inputCol, Param<String> outputCol, String invalidDoc,
                          String[] invalidValues) {
        this.inputCol = inputCol;
        this.outputCol = outputCol;
        handleInvalid = new Param<>(owner, "handleInvalid", invalidDoc, ParamValidators.inArray(invalidValues));
        rowIdCol = new Param<>(owner, "rowIdCol", "column naming rows in data error messages; empty: position");
        owner.setDefault(handleInvalid, invalidValues[0]);
        owner.setDefault(rowIdCol, "");
    }

    /**
     * The params of a stage with one output column and no single input column ({@link OutputColParams}).
     *
     * @param owner          the stage
     * @param outputDoc      what the output column holds
     * @param outputDefault  its default name
     * @param invalidDoc     what {@code handleInvalid}'s values do
     * @param invalidValues  its values; the first is the default
     * @return the params, {@code inputCol} null
     */
    public static StageParamSet withoutInput(Params owner, String outputDoc, String outputDefault, String invalidDoc,
                                             String[] invalidValues) {
        StageParamSet set = new StageParamSet(owner, null, new Param<>(owner, "outputCol", outputDoc), invalidDoc,
            invalidValues);
        owner.setDefault(set.outputCol, outputDefault);
        return set;
    }

    /**
     * The params of a stage whose columns are its own ({@link InvalidRowParams}): what invalid
     * rows do and the column naming them.
     *
     * @param owner          the stage
     * @param invalidDoc     what {@code handleInvalid}'s values do
     * @param invalidValues  its values; the first is the default
     * @return the params, {@code inputCol} and {@code outputCol} null
     */
    public static StageParamSet invalidRowsOnly(Params owner, String invalidDoc, String[] invalidValues) {
        return new StageParamSet(owner, null, null, invalidDoc, invalidValues);
    }
}

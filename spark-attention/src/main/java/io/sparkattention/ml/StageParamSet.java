package io.sparkattention.ml;

import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamValidators;
import org.apache.spark.ml.param.Params;

import java.io.Serializable;

/**
 * The Param objects every column-to-column stage shares — input and output column, what invalid
 * rows do, the column that names rows in errors — created for one owner after its uid is set
 * and exposed through {@link StageParams}: one definition, one set of defaults.
 */
public final class StageParamSet implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The values of {@code handleInvalid} for stages whose invalid rows are null inputs. */
    public static final String[] NULL_HANDLING = {"error", "skip", "keep"};

    final Param<String> inputCol;
    final Param<String> outputCol;
    final Param<String> handleInvalid;
    final Param<String> rowIdCol;

    /**
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
        inputCol = new Param<>(owner, "inputCol", inputDoc);
        outputCol = new Param<>(owner, "outputCol", outputDoc);
        handleInvalid = new Param<>(owner, "handleInvalid", invalidDoc, ParamValidators.inArray(invalidValues));
        rowIdCol = new Param<>(owner, "rowIdCol", "column naming rows in data error messages; empty: position");
        owner.setDefault(inputCol, inputDefault);
        owner.setDefault(outputCol, outputDefault);
        owner.setDefault(handleInvalid, invalidValues[0]);
        owner.setDefault(rowIdCol, "");
    }
}

package io.sparkattention.ml.feature;

import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.Params;

import java.io.Serializable;

/**
 * The Param objects of {@link RotaryPositionalEncoding}'s columns (query and key in, rotated query
 * and key out), created for one owner after its uid is set and exposed through {@link RotaryParams}.
 */
public final class RotaryParamSet implements Serializable {

    private static final long serialVersionUID = 1L;

    final Param<String> queryCol;
    final Param<String> keyCol;
    final Param<String> queryOutputCol;
    final Param<String> keyOutputCol;

    /**
     * @param owner the stage; its uid names the default output columns
     */
    RotaryParamSet(Params owner) {
        queryCol = new Param<>(owner, "queryCol", "query column: array<array<float|double>> or array<vector>, L×E");
        keyCol = new Param<>(owner, "keyCol", "key column (S×Ekv); empty: only the query is rotated");
        queryOutputCol = new Param<>(owner, "queryOutputCol", "rotated query column: array<array<float>>");
        keyOutputCol = new Param<>(owner, "keyOutputCol", "rotated key column: array<array<float>>");
        owner.setDefault(queryCol, "query");
        owner.setDefault(keyCol, "");
        owner.setDefault(queryOutputCol, owner.uid() + "__query");
        owner.setDefault(keyOutputCol, owner.uid() + "__key");
    }
}

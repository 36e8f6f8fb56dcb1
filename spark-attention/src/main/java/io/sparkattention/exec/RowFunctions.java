package io.sparkattention.exec;

import io.sparkattention.sparkinternal.CatalystColumns;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.types.DataType;

import java.util.ArrayList;
import java.util.List;

/** Builds DataFrame columns that evaluate a {@link RowFunction}. */
public final class RowFunctions {

    private RowFunctions() {
    }

    /**
     * A column computing {@code function} over {@code inputs}.
     *
     * @param name     shown in query plans
     * @param function the per-row computation
     * @param type     its Catalyst output type
     * @param rowId    a column identifying rows in error messages, or null
     * @param inputs   the input columns, in the order the function expects them
     */
    public static Column column(String name, RowFunction function, DataType type, Column rowId, List<Column> inputs) {
        List<Expression> children = new ArrayList<>();
        for (Column c : inputs) {
            children.add(CatalystColumns.expression(c));
        }
        Expression id = rowId == null ? null : CatalystColumns.expression(rowId);
        return CatalystColumns.column(new RowFunctionExpression(children, id, function, type, name));
    }
}

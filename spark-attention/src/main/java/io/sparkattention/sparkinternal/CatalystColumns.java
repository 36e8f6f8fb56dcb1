package io.sparkattention.sparkinternal;

import org.apache.spark.sql.Column;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.classic.ExpressionUtils$;

/**
 * A {@link Column} as the Catalyst {@link Expression} it stands for, and an expression as a
 * Column ({@code classic.ExpressionUtils}): how a per-row function written as a Catalyst
 * expression takes its inputs and becomes a column of a DataFrame.
 */
public final class CatalystColumns {

    private CatalystColumns() {
    }

    /** The expression {@code column} evaluates. */
    public static Expression expression(Column column) {
        return ExpressionUtils$.MODULE$.expression(column);
    }

    /** A column evaluating {@code expression}. */
    public static Column column(Expression expression) {
        return ExpressionUtils$.MODULE$.column(expression);
    }
}

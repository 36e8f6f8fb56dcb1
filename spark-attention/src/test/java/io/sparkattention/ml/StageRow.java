package io.sparkattention.ml;

import io.sparkattention.testing.SparkTestSession;
import org.apache.spark.ml.Transformer;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.jdk.javaapi.CollectionConverters;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The per-row computation an attention stage plans for an input schema, taken from the stage's
 * own {@code transform} and bound to the schema's column positions, so a test can evaluate it on
 * any Catalyst row — exactly what a Spark task runs on each row of a JSON or Parquet scan,
 * whatever the stage's decoding looks like inside.
 *
 * <p>The expression is found in the analyzed plan as the one whose type is the stage's output
 * struct and whose inputs are columns of the schema.
 */
final class StageRow {

    private final StructType schema;
    private final Expression bound;
    private final StructType outputStruct;

    private StageRow(StructType schema, Expression bound, StructType outputStruct) {
        this.schema = schema;
        this.bound = bound;
        this.outputStruct = outputStruct;
    }

    /**
     * Plans {@code stage} (set to the batch strategy, which evaluates rows where they are) over an
     * empty DataFrame of {@code schema}.
     */
    static StageRow of(Transformer stage, AttentionParams<?> params, StructType schema) {
        params.setStrategy("batch");
        Dataset<Row> in = SparkTestSession.get().createDataFrame(List.of(), schema);
        LogicalPlan inputPlan = in.queryExecution().analyzed();
        List<Attribute> inputs = CollectionConverters.asJava(inputPlan.output());
        StructField[] added = stage.transformSchema(schema).fields();
        StructType outputStruct = new StructType(Arrays.copyOfRange(added, schema.size(), added.length));
        Expression found = find(stage.transform(in).queryExecution().analyzed(), outputStruct);
        if (found == null) {
            throw new IllegalStateException("no expression of type " + outputStruct.simpleString() + " in the plan of "
                + stage);
        }
        return new StageRow(schema, bind(found, inputs), outputStruct);
    }

    /** The input schema the row's values follow. */
    StructType schema() {
        return schema;
    }

    /** The stage's output struct for one input row (null when the stage gives null). */
    InternalRow apply(InternalRow row) {
        return (InternalRow) bound.eval(row);
    }

    /** The columns the stage adds, as one struct: output, then weights when requested. */
    StructType outputStruct() {
        return outputStruct;
    }

    private static Expression find(LogicalPlan plan, StructType type) {
        for (Expression e : CollectionConverters.asJava(plan.expressions())) {
            Expression hit = find(e, type);
            if (hit != null) {
                return hit;
            }
        }
        for (LogicalPlan child : CollectionConverters.asJava(plan.children())) {
            Expression hit = find(child, type);
            if (hit != null) {
                return hit;
            }
        }
        return null;
    }

    private static Expression find(Expression e, StructType type) {
        if (sameFields(e.dataType(), type) && !e.children().isEmpty()
            && CollectionConverters.asJava(e.children()).stream().allMatch(c -> c instanceof AttributeReference)) {
            return e;
        }
        for (Expression child : CollectionConverters.asJava(e.children())) {
            Expression hit = find(child, type);
            if (hit != null) {
                return hit;
            }
        }
        return null;
    }

    private static boolean sameFields(DataType t, StructType type) {
        if (!(t instanceof StructType) || ((StructType) t).size() != type.size()) {
            return false;
        }
        StructField[] a = ((StructType) t).fields();
        for (int i = 0; i < a.length; i++) {
            if (!a[i].name().equals(type.fields()[i].name())) {
                return false;
            }
        }
        return true;
    }

    /** {@code e} with every column reference replaced by the column's position in {@code inputs}. */
    private static Expression bind(Expression e, List<Attribute> inputs) {
        if (e instanceof AttributeReference) {
            AttributeReference a = (AttributeReference) e;
            for (int i = 0; i < inputs.size(); i++) {
                if (inputs.get(i).exprId().equals(a.exprId())) {
                    return new BoundReference(i, a.dataType(), a.nullable());
                }
            }
            throw new IllegalStateException("column " + a.name() + " is not an input column");
        }
        List<Expression> children = new ArrayList<>();
        for (Expression child : CollectionConverters.asJava(e.children())) {
            children.add(bind(child, inputs));
        }
        return children.isEmpty() ? e : e.withNewChildren(CollectionConverters.asScala(children).toSeq());
    }
}

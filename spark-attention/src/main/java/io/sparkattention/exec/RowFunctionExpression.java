package io.sparkattention.exec;

import io.sparkattention.rows.RowDataException;

import org.apache.spark.TaskContext;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenContext;
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback;
import org.apache.spark.sql.catalyst.expressions.codegen.ExprCode;
import org.apache.spark.sql.types.DataType;
import scala.collection.immutable.IndexedSeq;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A Catalyst expression that evaluates a {@link RowFunction} on its children's values.
 *
 * <p>Why an expression rather than a UDF or {@code mapPartitions}: both of those convert arrays to
 * Scala collections of boxed floats (measured here 3–4× slower on 512×1024 rows), while an
 * expression sees {@code ArrayData}, whose binary form the decoders read in place. It also
 * works unchanged on streaming DataFrames. Code generation falls back to {@link #eval}, which is
 * right for a call that does millions of flops per row.
 *
 * <p>The last child may be a row identifier used only in error messages; without one, errors
 * name the row by its position in its partition.
 */
final class RowFunctionExpression extends Expression implements CodegenFallback, Serializable {

    private static final long serialVersionUID = 1L;

    private final List<Expression> inputs;
    private final Expression rowId;
    private final RowFunction function;
    private final DataType type;
    private final String name;

    /** Rows evaluated by this copy (one copy per task): the position of the current row. */
    private transient long position;

    RowFunctionExpression(List<Expression> inputs, Expression rowId, RowFunction function, DataType type,
                          String name) {
        this.inputs = List.copyOf(inputs);
        this.rowId = rowId;
        this.function = Objects.requireNonNull(function, "function");
        this.type = Objects.requireNonNull(type, "type");
        this.name = Objects.requireNonNull(name, "name");
    }

    @Override
    public Object eval(InternalRow row) {
        Object[] values = new Object[inputs.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = inputs.get(i).eval(row);
        }
        long at = position++;
        try {
            return function.apply(values);
        } catch (RowDataException e) {
            throw e.at(describeRow(row, at));
        }
    }

    private String describeRow(InternalRow row, long at) {
        if (rowId != null) {
            Object id = rowId.eval(row);
            return "row " + id;
        }
        TaskContext task = TaskContext.get();
        int partition = task == null ? 0 : task.partitionId();
        return partition == 0 ? "row " + at : "row " + at + " of partition " + partition;
    }

    @Override
    public boolean nullable() {
        return true;
    }

    @Override
    public DataType dataType() {
        return type;
    }

    @Override
    public String nodeName() {
        return name;
    }

    @Override
    public ExprCode doGenCode(CodegenContext ctx, ExprCode ev) {
        return CodegenFallback.super.doGenCode(ctx, ev);
    }

    @Override
    public Seq<Expression> children() {
        return CollectionConverters.asScala(allChildren()).toSeq();
    }

    private List<Expression> allChildren() {
        List<Expression> all = new ArrayList<>(inputs);
        if (rowId != null) {
            all.add(rowId);
        }
        return all;
    }

    @Override
    public Expression withNewChildrenInternal(IndexedSeq<Expression> newChildren) {
        List<Expression> all = CollectionConverters.asJava(newChildren);
        List<Expression> newInputs = all.subList(0, inputs.size());
        Expression newRowId = rowId == null ? null : all.get(inputs.size());
        return new RowFunctionExpression(newInputs, newRowId, function, type, name);
    }

    @Override
    public int productArity() {
        return inputs.size() + (rowId == null ? 0 : 1);
    }

    @Override
    public Object productElement(int n) {
        return allChildren().get(n);
    }

    @Override
    public boolean canEqual(Object that) {
        return that instanceof RowFunctionExpression;
    }

    /**
     * Equal when the children, the output type and the name are equal and the function is the
     * same instance. Catalyst compares plans by value: the cache manager finds a persisted Dataset
     * in a later query by comparing canonical copies of both plans, and canonicalising rebuilds
     * this node through {@link #withNewChildrenInternal}, so identity equality (a Java class's
     * default) would make every copy a stranger and every cached row-function column invisible.
     * The function is compared by identity, as Spark compares a UDF's: each {@code transform}
     * builds its own, so two transforms of one stage stay distinct, which is the safe side.
     */
    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof RowFunctionExpression)) {
            return false;
        }
        RowFunctionExpression that = (RowFunctionExpression) o;
        return function == that.function && inputs.equals(that.inputs) && Objects.equals(rowId, that.rowId)
            && type.equals(that.type) && name.equals(that.name);
    }

    /** Without the function: its identity hash differs from JVM to JVM, and Catalyst caches node hashes. */
    @Override
    public int hashCode() {
        return Objects.hash(inputs, rowId, type, name);
    }
}

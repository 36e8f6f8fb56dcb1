package io.sparkattention.examples.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

import java.util.Set;

/**
 * What a command knows about an input column, and so the type it declares for it when it reads
 * JSON lines: matrices as {@code array<array<double>>}, boolean masks and additive biases as one
 * L×S plane ({@code array<array<t>>}) or one plane per head ({@code array<array<array<t>>>}),
 * lengths as {@code bigint}, numbers (labels, weights) as {@code double}. A JSON value fits a kind
 * when its arrays nest to the kind's depth and hold leaves of the kind's type; empty arrays and
 * nulls fit at any level (the stages report a null where it matters).
 */
enum ColumnKind {
    /** An L×E matrix of numbers. */
    MATRIX(false),
    /** A boolean mask, L×S or H×L×S. */
    MASK(true),
    /** An additive bias, L×S or H×L×S. */
    BIAS(true),
    /** A whole number, such as a key length. */
    INTEGER(false),
    /** A number, such as a label or a row weight. */
    NUMBER(false);

    /** Depth of a shared plane or a matrix. */
    static final int PLANE = 2;
    /** Depth of one plane per head. */
    static final int PER_HEAD = 3;

    /** The strings Spark reads as float or double values (its non-numeric numbers). */
    private static final Set<String> NON_NUMERIC = Set.of("NaN", "Infinity", "+Infinity", "-Infinity", "+INF", "-INF");

    private final boolean planes;

    ColumnKind(boolean planes) {
        this.planes = planes;
    }

    /** Whether the depth is decided by the data: shared planes (2) or per head (3). */
    boolean hasPlanes() {
        return planes;
    }

    /** The depth of arrays a value of this kind has when the data does not decide it. */
    int defaultDepth() {
        return this == MATRIX || planes ? PLANE : 0;
    }

    /** The depths a value of this kind may have. */
    boolean allows(int depth) {
        return planes ? depth == PLANE || depth == PER_HEAD : depth == defaultDepth();
    }

    /**
     * The Spark type declared for this kind at {@code depth} levels of arrays. Numbers are read as
     * double, as JSON's decimals are written: a column passed through to the output keeps the
     * values it was given (the stages narrow to float32 themselves), and Parquet writes doubles
     * several times faster than floats of few distinct values (its float dictionary's hash
     * probing took minutes on the 1 GB input of BENCHMARKS.md).
     */
    DataType type(int depth) {
        DataType t = this == MASK ? DataTypes.BooleanType : this == INTEGER ? DataTypes.LongType
            : DataTypes.DoubleType;
        for (int i = 0; i < depth; i++) {
            t = DataTypes.createArrayType(t, true);
        }
        return t;
    }

    /**
     * Where {@code value} departs from this kind at {@code depth}: null when it fits, else a
     * phrase such as {@code "[0][1] is a string"} (the index path into the arrays, then what is
     * found there).
     */
    String mismatch(JsonNode value, int depth) {
        return mismatch(value, depth, "");
    }

    private String mismatch(JsonNode value, int depth, String path) {
        if (value == null || value.isNull()) {
            return null;
        }
        if (depth > 0) {
            if (!value.isArray()) {
                return (path.isEmpty() ? "the value" : path) + " is " + what(value) + ", not an array";
            }
            for (int i = 0; i < value.size(); i++) {
                String m = mismatch(value.get(i), depth - 1, path + "[" + i + "]");
                if (m != null) {
                    return m;
                }
            }
            return null;
        }
        if (leafFits(value)) {
            return null;
        }
        return (path.isEmpty() ? "the value" : path) + " is " + what(value);
    }

    private boolean leafFits(JsonNode leaf) {
        switch (this) {
            case MASK:
                return leaf.isBoolean();
            case INTEGER:
                return leaf.isIntegralNumber();
            default:
                return leaf.isNumber() || leaf.isTextual() && NON_NUMERIC.contains(leaf.textValue());
        }
    }

    /**
     * The depth of arrays of {@code value} along its first elements, or -1 when an empty array or
     * a null leaves it open.
     */
    static int depth(JsonNode value) {
        int d = 0;
        JsonNode v = value;
        while (v != null && v.isArray()) {
            if (v.isEmpty()) {
                return -1;
            }
            v = v.get(0);
            d++;
        }
        return v == null || v.isNull() ? -1 : d;
    }

    /** A JSON value in a few words. */
    static String what(JsonNode value) {
        if (value.isArray()) {
            return "an array";
        }
        if (value.isObject()) {
            return "an object";
        }
        if (value.isTextual()) {
            return "a string";
        }
        if (value.isBoolean()) {
            return value.booleanValue() ? "true" : "false";
        }
        if (value.isNumber()) {
            return "the number " + value.asText();
        }
        return value.getNodeType().toString().toLowerCase(java.util.Locale.ROOT);
    }

    /** The declared type in Spark's words, e.g. {@code array<array<boolean>>}. */
    String typeName(int depth) {
        return type(depth).simpleString();
    }
}

package io.sparkattention.testing;

import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.Vectors;

import java.util.List;

/** Conversions between row-major arrays and the matrix values of DataFrame rows. */
public final class Matrices {

    private Matrices() {
    }

    /** {@code rows×cols} row-major values as {@code float[rows][cols]} (an array&lt;array&lt;float&gt;&gt; value). */
    public static float[][] floats(float[] values, int rows, int cols) {
        float[][] m = new float[rows][cols];
        for (int i = 0; i < rows; i++) {
            System.arraycopy(values, i * cols, m[i], 0, cols);
        }
        return m;
    }

    /** As {@code double[rows][cols]}. */
    public static double[][] doubles(float[] values, int rows, int cols) {
        double[][] m = new double[rows][cols];
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < cols; j++) {
                m[i][j] = values[i * cols + j];
            }
        }
        return m;
    }

    /** As an array of ML vectors, every other row sparse. */
    public static Vector[] vectors(float[] values, int rows, int cols) {
        Vector[] m = new Vector[rows];
        for (int i = 0; i < rows; i++) {
            double[] row = new double[cols];
            for (int j = 0; j < cols; j++) {
                row[j] = values[i * cols + j];
            }
            m[i] = i % 2 == 0 ? Vectors.dense(row) : Vectors.dense(row).toSparse();
        }
        return m;
    }

    /**
     * Flattens a {@code Row}'s array&lt;array&lt;float&gt;&gt; value (the outer list of {@code Row.getList}
     * holds Scala sequences).
     */
    public static float[] flatten(List<?> matrix) {
        int rows = matrix.size();
        List<List<?>> converted = new java.util.ArrayList<>();
        for (Object row : matrix) {
            converted.add(asList(row));
        }
        int cols = rows == 0 ? 0 : converted.get(0).size();
        float[] out = new float[rows * cols];
        for (int i = 0; i < rows; i++) {
            List<?> row = converted.get(i);
            for (int j = 0; j < cols; j++) {
                out[i * cols + j] = ((Number) row.get(j)).floatValue();
            }
        }
        return out;
    }

    /** Flattens an H×L×S value. */
    public static float[] flatten3(List<?> planes) {
        float[][] flat = new float[planes.size()][];
        int total = 0;
        for (int p = 0; p < flat.length; p++) {
            flat[p] = flatten(asList(planes.get(p)));
            total += flat[p].length;
        }
        float[] out = new float[total];
        int at = 0;
        for (float[] f : flat) {
            System.arraycopy(f, 0, out, at, f.length);
            at += f.length;
        }
        return out;
    }

    private static List<?> asList(Object value) {
        if (value instanceof List) {
            return (List<?>) value;
        }
        return scala.jdk.javaapi.CollectionConverters.asJava((scala.collection.Seq<?>) value);
    }
}

package io.sparkattention.exec;

import org.apache.spark.sql.Column;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;

import java.util.List;
import java.util.SplittableRandom;

/**
 * A deterministic generator of ragged training sequences for the integration tests: the row id,
 * its class and a seed give an L×E matrix, L drawn from [minLength, maxLength], of standard normal
 * floats with {@link #SIGNAL} added to feature (class mod E) of every token, so a classifier can
 * learn the class. Computed on the executors from the id alone, with {@code StrictMath} (bit-exact
 * in every JIT tier and JVM), so a recomputed partition holds exactly the same rows, also on a
 * freshly started executor. An optional {@link RowFault} makes one call throw.
 */
final class GeneratedSequence implements RowFunction {

    private static final long serialVersionUID = 1L;

    /** What the class adds to its feature: about one standard deviation of the noise. */
    static final float SIGNAL = 1.0f;

    private final long seed;
    private final int minLength;
    private final int maxLength;
    private final int width;
    private final RowFault fault;

    private GeneratedSequence(long seed, int minLength, int maxLength, int width, RowFault fault) {
        this.seed = seed;
        this.minLength = minLength;
        this.maxLength = maxLength;
        this.width = width;
        this.fault = fault;
    }

    /**
     * A column of L×width float matrices from the long column {@code id} and the integral class
     * column {@code label}; {@code fault} may be null.
     */
    static Column column(Column id, Column label, long seed, int minLength, int maxLength, int width,
                         RowFault fault) {
        if (minLength < 1 || maxLength < minLength || width < 1) {
            throw new IllegalArgumentException("lengths must satisfy 1 <= minLength <= maxLength and width >= 1, got ["
                + minLength + ", " + maxLength + "] and " + width);
        }
        return RowFunctions.column("generated_sequence", new GeneratedSequence(seed, minLength, maxLength, width, fault),
            GeneratedMatrix.MATRIX, null, List.of(id, label));
    }

    @Override
    public Object apply(Object[] inputs) {
        long id = (Long) inputs[0];
        int label = ((Number) inputs[1]).intValue();
        if (fault != null) {
            fault.check(id);
        }
        SplittableRandom random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + id);
        int length = minLength + random.nextInt(maxLength - minLength + 1);
        Object[] out = new Object[length];
        for (int i = 0; i < length; i++) {
            float[] token = new float[width];
            for (int j = 0; j < width; j++) {
                double u = 1.0 - random.nextDouble(), v = random.nextDouble();
                token[j] = (float) (StrictMath.sqrt(-2 * StrictMath.log(u)) * StrictMath.cos(2 * Math.PI * v));
            }
            token[label % width] += SIGNAL;
            out[i] = UnsafeArrayData.fromPrimitiveArray(token);
        }
        return new GenericArrayData(out);
    }
}

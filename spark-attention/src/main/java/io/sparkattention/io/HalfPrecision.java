package io.sparkattention.io;

/**
 * Widening of the two 16-bit float formats to {@code float}; both conversions are exact.
 *
 * <p>Java 17 has no {@code Float.float16ToFloat} (it arrived in Java 20), so IEEE half precision
 * is decoded here, subnormals, infinities and NaN included.
 */
public final class HalfPrecision {

    /** Exponent bias of float32 minus that of float16 (127 − 15). */
    private static final int EXPONENT_REBIAS = 112;
    /** Value of the last mantissa bit of a float16 subnormal: 2^−24. */
    private static final float SUBNORMAL_UNIT = 0x1p-24f;

    private HalfPrecision() {
    }

    /**
     * Decodes an IEEE 754 half-precision value.
     *
     * @param bits the 16 bits (sign, 5 exponent bits, 10 mantissa bits) in the low half
     * @return the same value as a float; NaN payloads are kept in the mantissa's upper bits
     */
    public static float halfToFloat(short bits) {
        int h = bits & 0xFFFF;
        int sign = (h & 0x8000) << 16;
        int exponent = (h >>> 10) & 0x1F;
        int mantissa = h & 0x3FF;
        if (exponent == 0x1F) {
            return Float.intBitsToFloat(sign | 0x7F80_0000 | (mantissa << 13));
        }
        if (exponent == 0) {
            // Zero or subnormal: mantissa × 2^−24 is exact in float32 (10 significant bits).
            float magnitude = mantissa * SUBNORMAL_UNIT;
            return sign != 0 ? -magnitude : magnitude;
        }
        return Float.intBitsToFloat(sign | ((exponent + EXPONENT_REBIAS) << 23) | (mantissa << 13));
    }

    /**
     * Decodes a bfloat16 value, which is the upper half of a float32.
     *
     * @param bits the 16 bits in the low half
     * @return the same value as a float
     */
    public static float bfloat16ToFloat(short bits) {
        return Float.intBitsToFloat((bits & 0xFFFF) << 16);
    }
}

package io.sparkattention.io;

import java.util.Optional;

/**
 * The element types of the safetensors format, named as in its header, with their widths.
 *
 * <p>Every type here can be present in a file that {@link SafeTensors} opens (its offsets are
 * checked with the width); which Java arrays a type can be read into is up to the reading method:
 * {@link #isFloat()} types become {@code float[]}/{@code double[]}, {@link #isInteger()} types
 * become {@code long[]}/{@code int[]}, {@link #BOOL} becomes {@code boolean[]}. The 8-bit float
 * types are recognised so that such a file opens, but are not converted.
 */
public enum DType {
    /** One byte, 0 or 1. */
    BOOL(1),
    /** Unsigned 8-bit integer. */
    U8(1),
    /** Signed 8-bit integer. */
    I8(1),
    /** 8-bit float, 5 exponent and 2 mantissa bits (recognised, not converted). */
    F8_E5M2(1),
    /** 8-bit float, 4 exponent and 3 mantissa bits (recognised, not converted). */
    F8_E4M3(1),
    /** Signed 16-bit integer. */
    I16(2),
    /** Unsigned 16-bit integer. */
    U16(2),
    /** IEEE 754 half precision. */
    F16(2),
    /** bfloat16: the upper 16 bits of a float32. */
    BF16(2),
    /** Signed 32-bit integer. */
    I32(4),
    /** Unsigned 32-bit integer. */
    U32(4),
    /** IEEE 754 single precision. */
    F32(4),
    /** IEEE 754 double precision. */
    F64(8),
    /** Signed 64-bit integer. */
    I64(8),
    /** Unsigned 64-bit integer. */
    U64(8);

    private final int width;

    DType(int width) {
        this.width = width;
    }

    /**
     * Bytes per element.
     *
     * @return 1, 2, 4 or 8
     */
    public int width() {
        return width;
    }

    /**
     * Whether the type converts to {@code float}/{@code double}.
     *
     * @return true for {@link #F16}, {@link #BF16}, {@link #F32} and {@link #F64}
     */
    public boolean isFloat() {
        return this == F16 || this == BF16 || this == F32 || this == F64;
    }

    /**
     * Whether the type is an integer type that converts to {@code long}.
     *
     * @return true for the signed and unsigned integer types (not {@link #BOOL})
     */
    public boolean isInteger() {
        switch (this) {
            case U8: case I8: case I16: case U16: case I32: case U32: case I64: case U64:
                return true;
            default:
                return false;
        }
    }

    /**
     * The type a safetensors header names {@code name}.
     *
     * @param name the header's {@code dtype} string, case-sensitive as in the format
     * @return the type, or empty when the name is not a known dtype
     */
    public static Optional<DType> fromHeaderName(String name) {
        for (DType t : values()) {
            if (t.name().equals(name)) {
                return Optional.of(t);
            }
        }
        return Optional.empty();
    }
}

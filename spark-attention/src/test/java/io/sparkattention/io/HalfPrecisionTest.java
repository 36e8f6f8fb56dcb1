package io.sparkattention.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** F16 and BF16 decode exactly, special values included, and are read from files as float32. */
class HalfPrecisionTest {

    private static float half(int bits) {
        return HalfPrecision.halfToFloat((short) bits);
    }

    private static float bf16(int bits) {
        return HalfPrecision.bfloat16ToFloat((short) bits);
    }

    @Test
    void halfNormalValues() {
        assertEquals(1.0f, half(0x3C00));
        assertEquals(-2.0f, half(0xC000));
        assertEquals(0.5f, half(0x3800));
        assertEquals(65504.0f, half(0x7BFF), "largest finite half");
        assertEquals(0x1p-14f, half(0x0400), "smallest normal half");
        assertEquals(1.0f + 0x1p-10f, half(0x3C01), "one ulp above 1");
        assertEquals(0.333251953125f, half(0x3555), "nearest half to 1/3");
    }

    @Test
    void halfSubnormalsAndZeros() {
        assertEquals(0x1p-24f, half(0x0001), "smallest subnormal");
        assertEquals(1023 * 0x1p-24f, half(0x03FF), "largest subnormal");
        assertEquals(-0x1p-24f, half(0x8001));
        assertEquals(Float.floatToRawIntBits(0.0f), Float.floatToRawIntBits(half(0x0000)));
        assertEquals(Float.floatToRawIntBits(-0.0f), Float.floatToRawIntBits(half(0x8000)), "-0.0 keeps its sign");
    }

    @Test
    void halfInfinitiesAndNaN() {
        assertEquals(Float.POSITIVE_INFINITY, half(0x7C00));
        assertEquals(Float.NEGATIVE_INFINITY, half(0xFC00));
        assertTrue(Float.isNaN(half(0x7E00)));
        assertTrue(Float.isNaN(half(0x7C01)), "signalling NaN stays NaN, not infinity");
        assertTrue(Float.isNaN(half(0xFE00)));
    }

    /** Every one of the 65,536 bit patterns against the textbook definition, evaluated in double. */
    @Test
    void halfMatchesDefinitionForEveryBitPattern() {
        for (int bits = 0; bits <= 0xFFFF; bits++) {
            int sign = bits >>> 15;
            int exponent = (bits >>> 10) & 0x1F;
            int mantissa = bits & 0x3FF;
            double expected;
            if (exponent == 0x1F) {
                expected = mantissa == 0 ? Double.POSITIVE_INFINITY : Double.NaN;
            } else if (exponent == 0) {
                expected = Math.scalb(mantissa / 1024.0, -14);
            } else {
                expected = Math.scalb(1 + mantissa / 1024.0, exponent - 15);
            }
            expected = sign == 1 ? -expected : expected;
            float got = half(bits);
            String hex = "0x" + Integer.toHexString(bits);
            if (Double.isNaN(expected)) {
                assertTrue(Float.isNaN(got), hex);
            } else {
                assertEquals(expected, got, 0.0, hex);
                assertEquals(sign == 1, (Float.floatToRawIntBits(got) >>> 31) == 1, "sign of " + hex);
            }
        }
    }

    @Test
    void bfloat16IsTheUpperHalfOfAFloat() {
        assertEquals(1.0f, bf16(0x3F80));
        assertEquals(-2.0f, bf16(0xC000));
        assertEquals(3.140625f, bf16(0x4049), "pi truncated to 8 bits of mantissa");
        assertEquals(0x1p-133f, bf16(0x0001), "smallest subnormal");
        assertEquals(Float.POSITIVE_INFINITY, bf16(0x7F80));
        assertEquals(Float.NEGATIVE_INFINITY, bf16(0xFF80));
        assertTrue(Float.isNaN(bf16(0x7FC0)));
        assertEquals(Float.floatToRawIntBits(-0.0f), Float.floatToRawIntBits(bf16(0x8000)));
        for (int bits = 0; bits <= 0xFFFF; bits++) {
            assertEquals(bits << 16, Float.floatToRawIntBits(bf16(bits)));
        }
    }

    @Test
    void halfTensorsReadAsFloat32AndFloat64(@TempDir Path dir) throws Exception {
        int[] bits = {0x3C00, 0x0001, 0x7C00, 0x8000, 0xFC00, 0x7E00, 0xC000};
        String header = "{" + RawSafeTensors.entry("h", "F16", "[7]", 0, 14) + ","
            + RawSafeTensors.entry("z", "BF16", "[7]", 14, 28) + "}";
        byte[] data = new byte[28];
        System.arraycopy(RawSafeTensors.shorts(bits), 0, data, 0, 14);
        byte[] bf16 = RawSafeTensors.shorts(0x3F80, 0x0001, 0x7F80, 0x8000, 0xFF80, 0x7FC0, 0xC000);
        System.arraycopy(bf16, 0, data, 14, 14);
        SafeTensors st = SafeTensors.read(RawSafeTensors.write(dir.resolve("half.safetensors"), header, data));

        float[] h = st.floats("h");
        assertEquals(1.0f, h[0]);
        assertEquals(0x1p-24f, h[1]);
        assertEquals(Float.POSITIVE_INFINITY, h[2]);
        assertEquals(Float.floatToRawIntBits(-0.0f), Float.floatToRawIntBits(h[3]));
        assertEquals(Float.NEGATIVE_INFINITY, h[4]);
        assertTrue(Float.isNaN(h[5]));
        assertEquals(-2.0f, h[6]);
        assertEquals(0x1p-24, st.doubles("h")[1], 0.0);

        float[] z = st.floats("z");
        assertEquals(1.0f, z[0]);
        assertEquals(0x1p-133f, z[1]);
        assertEquals(Float.POSITIVE_INFINITY, z[2]);
        assertEquals(Float.floatToRawIntBits(-0.0f), Float.floatToRawIntBits(z[3]));
        assertEquals(Float.NEGATIVE_INFINITY, z[4]);
        assertTrue(Float.isNaN(z[5]));
        assertEquals(-2.0f, z[6]);
    }
}

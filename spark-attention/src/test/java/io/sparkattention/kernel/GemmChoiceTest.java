package io.sparkattention.kernel;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GemmChoiceTest {

    @Test
    @DisplayName("auto picks the Vector API kernel without a native BLAS or with 512-bit vectors, else the BLAS")
    void autoFollowsTheMachine() {
        LinearKernel vector = GemmChoice.vectorKernel();
        boolean javaKernel = vector != null && (!Blas.isNative() || vector.preferredOverNativeBlas());
        String expected = javaKernel ? vector.name() : "blas:" + Blas.name();
        assertEquals(expected, GemmChoice.create("auto").name());
        assertEquals(expected, LinearKernel.get().name(), "the JVM's kernel follows the same rule");
    }

    @Test
    @DisplayName("the Vector API kernel is preferred over a native BLAS exactly when its vectors are 512 bits wide")
    void preferenceFollowsTheVectorWidth() {
        LinearKernel vector = LinearKernel.named("vector");
        assertEquals(vector.name().startsWith("vector:512-bit"), vector.preferredOverNativeBlas());
        assertEquals(false, LinearKernel.named("blas").preferredOverNativeBlas());
    }

    @Test
    @DisplayName("names are case- and space-insensitive; an unknown one is an error naming the property and choices")
    void names() {
        assertEquals(LinearKernel.named("blas").name(), LinearKernel.named(" BLAS ").name());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LinearKernel.named("gpu"));
        assertTrue(e.getMessage().contains(GemmChoice.PROPERTY) && e.getMessage().contains("auto, vector or blas"),
            e.getMessage());
    }
}

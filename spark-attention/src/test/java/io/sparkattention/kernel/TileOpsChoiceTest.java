package io.sparkattention.kernel;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TileOpsChoiceTest {

    @Test
    @DisplayName("auto picks the Java tiles without a native BLAS or with 512-bit vectors, else the BLAS tiles")
    void autoFollowsTheMachine() {
        TileOps vector = TileOpsChoice.vectorTileOps();
        TileOps auto = TileOpsChoice.create("auto");
        boolean javaTiles = vector != null && (!Blas.isNative() || vector.preferredOverNativeBlas());
        String expected = javaTiles ? vector.name() : TileOps.named(vector != null ? "blas" : "blas-scalar").name();
        assertEquals(expected, auto.name());
    }

    @Test
    @DisplayName("the Java tiles are preferred over a native BLAS exactly when their vectors are 512 bits wide")
    void preferenceFollowsTheVectorWidth() {
        TileOps vector = TileOps.named("vector");
        assertEquals(vector.name().startsWith("vector:512-bit"), vector.preferredOverNativeBlas());
        assertEquals(false, TileOps.named("blas").preferredOverNativeBlas());
    }

    @Test
    @DisplayName("an unknown name is an error naming the system property and the accepted names")
    void unknownName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TileOps.named("gpu"));
        assertTrue(e.getMessage().contains(TileOpsChoice.PROPERTY) && e.getMessage().contains("blas-scalar"),
            e.getMessage());
    }
}

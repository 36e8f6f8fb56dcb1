package io.sparkattention.kernel;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BlasTest {

    @Test
    @DisplayName("OPENBLAS_CORETYPE is reported as set, and as 'auto' when unset or blank")
    void coreType() {
        assertEquals("Haswell", Blas.coreType("Haswell"));
        assertEquals("auto", Blas.coreType(null));
        assertEquals("auto", Blas.coreType(" "));
    }

    @Test
    @DisplayName("the BLAS is chosen by sparkattention.blas: java gives netlib's Java BLAS, an unknown name names "
        + "the property and the choices")
    void choiceByName() {
        assertTrue(Blas.create("java") instanceof dev.ludovic.netlib.blas.JavaBLAS);
        assertTrue(Blas.create(" Java ") instanceof dev.ludovic.netlib.blas.JavaBLAS);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Blas.create("mkl"));
        assertEquals("BLAS for attention products \"mkl\" (system property sparkattention.blas): expected auto, "
            + "native or java", e.getMessage());
    }
}

package io.sparkattention.kernel;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class BlasTest {

    @Test
    @DisplayName("OPENBLAS_CORETYPE is reported as set, and as 'auto' when unset or blank")
    void coreType() {
        assertEquals("Haswell", Blas.coreType("Haswell"));
        assertEquals("auto", Blas.coreType(null));
        assertEquals("auto", Blas.coreType(" "));
    }
}

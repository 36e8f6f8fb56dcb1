package io.sparkattention.kernel;

import dev.ludovic.netlib.blas.JavaBLAS;
import dev.ludovic.netlib.blas.NativeBLAS;

import java.util.ArrayList;
import java.util.List;

/** Every {@link TileOps} this JVM can run: each one is held to the same reference. */
final class TileOpsImplementations {

    private TileOpsImplementations() {
    }

    static List<TileOps> all() {
        List<TileOps> all = new ArrayList<>();
        all.add(new BlasTileOps(JavaBLAS.getInstance(), new ScalarSoftmax()));
        OnlineSoftmax vectorSoftmax = TileOpsChoice.vectorSoftmax();
        TileOps vector = TileOpsChoice.vectorTileOps();
        if (vector != null) {
            all.add(vector);
            all.add(new BlasTileOps(JavaBLAS.getInstance(), vectorSoftmax));
        }
        try {
            all.add(new BlasTileOps(NativeBLAS.getInstance(), vectorSoftmax != null ? vectorSoftmax : new ScalarSoftmax()));
        } catch (RuntimeException | LinkageError noNativeBlas) {
            // A machine without libblas.so.3 tests the Java paths only.
        }
        return all;
    }
}

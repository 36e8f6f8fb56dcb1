package io.sparkattention.kernel;

import java.io.Serializable;

/**
 * The serialized form of a {@link FlashAttention}: its spec alone. A kernel travels (to Spark
 * executors) this way and is rebuilt with the receiving JVM's own {@link TileOps} choice: the
 * implementations depend on the machine (native BLAS, vector width), and the spec is all that
 * defines the numbers.
 */
final class SerializedKernel implements Serializable {

    private static final long serialVersionUID = 1L;

    private final AttentionSpec spec;

    SerializedKernel(AttentionSpec spec) {
        this.spec = spec;
    }

    private Object readResolve() {
        return new FlashAttention(spec);
    }
}

package io.sparkattention.nn;

import java.io.Serializable;
import java.util.Arrays;
import java.util.List;

/**
 * Where a network's tensors go in {@link GradientSums}: which flat ranges are dense, and the
 * row-sparse tensors' offsets, rows and widths (a tensor's first extent is its rows).
 */
public final class GradientLayout implements Serializable {

    private static final long serialVersionUID = 1L;

    final int parameterCount;
    final int denseCount;
    final int[] sparseTensors;
    final int[] sparseOffset;
    final int[] sparseRows;
    final int[] sparseWidth;

    /**
     * @param parameters   the network's tensors in flat order, without gaps
     * @param rowSparse    indices into parameters of the row-sparse tensors, ascending
     * @throws IllegalArgumentException when the tensors leave gaps or an index is out of order
     */
    public GradientLayout(List<ParameterTensor> parameters, int[] rowSparse) {
        int offset = 0;
        for (ParameterTensor t : parameters) {
            if (t.offset() != offset) {
                throw new IllegalArgumentException("tensor " + t.name() + " starts at " + t.offset()
                    + ", not where the one before it ends (" + offset + ")");
            }
            offset += t.size();
        }
        this.parameterCount = offset;
        this.sparseTensors = rowSparse.clone();
        this.sparseOffset = new int[rowSparse.length];
        this.sparseRows = new int[rowSparse.length];
        this.sparseWidth = new int[rowSparse.length];
        int sparseValues = 0;
        for (int s = 0; s < rowSparse.length; s++) {
            if (rowSparse[s] < 0 || rowSparse[s] >= parameters.size() || (s > 0 && rowSparse[s] <= rowSparse[s - 1])) {
                throw new IllegalArgumentException("row-sparse tensor indices must ascend within [0, "
                    + parameters.size() + "): " + Arrays.toString(rowSparse));
            }
            ParameterTensor t = parameters.get(rowSparse[s]);
            int[] shape = t.shape();
            sparseOffset[s] = t.offset();
            sparseRows[s] = shape.length == 0 ? 1 : shape[0];
            sparseWidth[s] = sparseRows[s] == 0 ? 0 : t.size() / sparseRows[s];
            sparseValues += t.size();
        }
        this.denseCount = parameterCount - sparseValues;
    }

    /** The flat vector's length: the network's {@link TrainableNetwork#parameterCount()}. */
    public int parameterCount() {
        return parameterCount;
    }

    /** The values of the dense part: the flat vector without its row-sparse tensors. */
    public int denseCount() {
        return denseCount;
    }

    /** The layout of {@code network}'s tensors. */
    public static GradientLayout of(TrainableNetwork<?> network) {
        return new GradientLayout(network.parameters(), network.rowSparseTensors());
    }

    /** The index in the dense part of flat position {@code from}, checking [from, to) holds no sparse tensor. */
    int denseIndex(int from, int to) {
        int cut = 0;
        for (int s = 0; s < sparseTensors.length; s++) {
            int start = sparseOffset[s];
            int end = start + sparseRows[s] * sparseWidth[s];
            if (from < end && to > start) {
                throw new IllegalArgumentException("flat range [" + from + ", " + to
                    + ") overlaps a row-sparse tensor at [" + start + ", " + end + ")");
            }
            if (end <= from) {
                cut += end - start;
            }
        }
        return from - cut;
    }
}

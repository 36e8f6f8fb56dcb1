package io.sparkattention.nn;

import java.io.Serializable;
import java.util.Arrays;

/**
 * One named tensor of a network's flat parameter vector: its state_dict name, its shape
 * (row-major) and where its values start in the vector.
 */
public final class ParameterTensor implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String name;
    private final int[] shape;
    private final int offset;
    private final int size;
    /** The tensor's AdamW group when given explicitly; null for Hugging Face's name rule. */
    private final Boolean decay;

    ParameterTensor(String name, int offset, int... shape) {
        this(name, offset, null, shape);
    }

    private ParameterTensor(String name, int offset, Boolean decay, int... shape) {
        if (offset < 0) {
            throw new IllegalArgumentException("tensor " + name + ": negative offset " + offset);
        }
        for (int s : shape) {
            if (s < 0) {
                throw new IllegalArgumentException("tensor " + name + ": negative extent in " + Arrays.toString(shape));
            }
        }
        this.name = name;
        this.shape = shape.clone();
        this.offset = offset;
        int n = 1;
        for (int s : shape) {
            n *= s;
        }
        this.size = n;
        this.decay = decay;
    }

    /**
     * A tensor of a flat parameter vector: {@code shape}'s product values from {@code offset}.
     *
     * @throws IllegalArgumentException when the offset or an extent is negative
     */
    public static ParameterTensor of(String name, int offset, int... shape) {
        return new ParameterTensor(java.util.Objects.requireNonNull(name, "name"), offset, shape);
    }

    /**
     * A tensor of a flat parameter vector whose AdamW group is given: {@link #decayed()} returns
     * {@code decayed} whatever the name (GPT-2's groups: decay on the 2-D tensors only, which
     * Hugging Face's name rule cannot tell from {@code ln_1.weight}).
     *
     * @throws IllegalArgumentException when the offset or an extent is negative
     */
    public static ParameterTensor of(String name, int offset, boolean decayed, int... shape) {
        return new ParameterTensor(java.util.Objects.requireNonNull(name, "name"), offset, decayed, shape);
    }

    /**
     * Whether weight decay applies to this tensor: the flag given to
     * {@link #of(String, int, boolean, int...)}, else Hugging Face's grouping (its
     * {@code Trainer}, and the fine-tuning fixtures): every tensor but biases (names ending in
     * {@code bias}) and LayerNorm parameters (names containing {@code LayerNorm}).
     */
    public boolean decayed() {
        if (decay != null) {
            return decay;
        }
        return !(name.endsWith("bias") || name.contains("LayerNorm"));
    }

    /** The PyTorch state_dict name, e.g. {@code attention.in_proj_weight}. */
    public String name() {
        return name;
    }

    /** The shape, row-major (a copy). */
    public int[] shape() {
        return shape.clone();
    }

    /** Index of the first value in the flat parameter vector. */
    public int offset() {
        return offset;
    }

    /** Number of values. */
    public int size() {
        return size;
    }

    /**
     * This tensor's values, copied out of a flat parameter vector.
     *
     * @throws IllegalArgumentException when the vector ends before this tensor does
     */
    public float[] slice(float[] parameters) {
        if (parameters.length < offset + size) {
            throw new IllegalArgumentException("parameter vector of " + parameters.length + " values ends before "
                + name + " (values [" + offset + ", " + (offset + size) + "))");
        }
        return Arrays.copyOfRange(parameters, offset, offset + size);
    }

    @Override
    public String toString() {
        return name + Arrays.toString(shape) + "@" + offset;
    }
}

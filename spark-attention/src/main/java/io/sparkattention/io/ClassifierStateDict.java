package io.sparkattention.io;

import io.sparkattention.nn.ParameterTensor;

import java.io.IOException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Maps the state_dict of the reference {@code AttentionClassifier} module
 * ({@code spark-attention/src/test/resources/fixtures/training/make_training_fixtures.py}), saved as safetensors, onto the flat
 * parameter vector of {@link io.sparkattention.nn.AttentionClassifierNetwork} and back.
 *
 * <p>PyTorch's names, with {@code E = embed_dim} and {@code K} classes:
 * <pre>
 *   attention.in_proj_weight    3E×E   [W_q; W_k; W_v]
 *   attention.in_proj_bias      3E
 *   attention.out_proj.weight   E×E
 *   attention.out_proj.bias     E
 *   classifier.weight           K×E
 *   classifier.bias             K
 * </pre>
 * The network's {@link ParameterTensor} list gives each name's shape and offset; this class only
 * moves the values and checks that the file agrees with it. Tensors may be stored as F32, F64,
 * F16 or BF16; extra tensors in the file are ignored, as {@code load_state_dict(strict=False)} would.
 */
public final class ClassifierStateDict {

    /** Name of the linear head's weight, K×E: the tensor the dimensions are read from. */
    public static final String CLASSIFIER_WEIGHT = "classifier.weight";
    /** Name of the attention layer's stacked input projection, 3E×E. */
    public static final String IN_PROJ_WEIGHT = "attention.in_proj_weight";

    private ClassifierStateDict() {
    }

    /**
     * The embedding width E and the number of classes K of a state_dict, from
     * {@code classifier.weight} (K×E).
     *
     * @param tensors the file
     * @return {@code {E, K}}
     * @throws TensorFormatException naming {@code classifier.weight} when it is missing or not a
     *     non-empty matrix
     */
    public static int[] dimensions(SafeTensors tensors) throws TensorFormatException {
        Objects.requireNonNull(tensors, "tensors");
        if (!tensors.has(CLASSIFIER_WEIGHT)) {
            throw new TensorFormatException(tensors.source(), CLASSIFIER_WEIGHT, "missing; an AttentionClassifier "
                + "state_dict has attention.* and classifier.* tensors, the file holds " + tensors.names());
        }
        int[] shape = tensors.intShape(CLASSIFIER_WEIGHT);
        if (shape.length != 2 || shape[0] < 1 || shape[1] < 1) {
            throw new TensorFormatException(tensors.source(), CLASSIFIER_WEIGHT, "has shape "
                + Arrays.toString(shape) + ", expected [num_classes, embed_dim]");
        }
        return new int[] {shape[1], shape[0]};
    }

    /**
     * Reads every parameter of {@code layout} into one flat vector.
     *
     * @param tensors        the file
     * @param layout         the network's parameters in state_dict order (name, shape, offset)
     * @param parameterCount the flat vector's length
     * @return the flat parameter vector
     * @throws TensorFormatException naming the first tensor that is missing or whose shape differs
     *     from the layout's, or that holds a NaN or infinite value
     * @throws IOException when the file cannot be read
     */
    public static float[] load(SafeTensors tensors, List<ParameterTensor> layout, int parameterCount)
        throws IOException {
        Objects.requireNonNull(tensors, "tensors");
        // Every tensor is found and shaped as the layout says before the vector is allocated:
        // its size then comes from tensors the file holds, not from one shape in its header.
        for (ParameterTensor p : layout) {
            checkPresentAndShaped(tensors, p);
        }
        float[] flat = new float[parameterCount];
        for (ParameterTensor p : layout) {
            float[] values = tensors.floats(p.name());
            for (int i = 0; i < values.length; i++) {
                if (!Float.isFinite(values[i])) {
                    throw new TensorFormatException(tensors.source(), p.name(), "holds " + values[i]
                        + " at flat index " + i);
                }
            }
            System.arraycopy(values, 0, flat, p.offset(), values.length);
        }
        return flat;
    }

    private static void checkPresentAndShaped(SafeTensors tensors, ParameterTensor p) throws TensorFormatException {
        if (!tensors.has(p.name())) {
            throw new TensorFormatException(tensors.source(), p.name(), "missing; expected shape "
                + Arrays.toString(p.shape()));
        }
        int[] shape = tensors.intShape(p.name());
        if (!Arrays.equals(shape, p.shape())) {
            throw new TensorFormatException(tensors.source(), p.name(), "has shape " + Arrays.toString(shape)
                + ", expected " + Arrays.toString(p.shape()));
        }
    }

    /**
     * The flat vector as PyTorch-named F32 tensors, ready for {@code load_state_dict}.
     *
     * @param parameters the flat parameter vector
     * @param layout     the network's parameters in state_dict order (name, shape, offset)
     * @return the tensors by name, in state_dict order
     */
    public static Map<String, Tensor> toTensors(float[] parameters, List<ParameterTensor> layout) {
        Objects.requireNonNull(parameters, "parameters");
        Map<String, Tensor> out = new LinkedHashMap<>();
        for (ParameterTensor p : layout) {
            int[] shape = p.shape();
            long[] dims = new long[shape.length];
            int size = 1;
            for (int i = 0; i < shape.length; i++) {
                dims[i] = shape[i];
                size *= shape[i];
            }
            out.put(p.name(), Tensor.f32(Arrays.copyOfRange(parameters, p.offset(), p.offset() + size), dims));
        }
        return out;
    }
}

package io.sparkattention.io;

import io.sparkattention.kernel.Heads;
import io.sparkattention.nn.MultiHeadAttentionWeights;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Maps PyTorch's {@code nn.MultiheadAttention} state_dict, saved as safetensors, onto
 * {@link MultiHeadAttentionWeights} and back.
 *
 * <p>PyTorch's names, with {@code E = embed_dim}:
 * <pre>
 *   in_proj_weight    3E×E     [W_q; W_k; W_v] stacked on rows — when kdim = vdim = E
 *   q_proj_weight     E×E      } instead of in_proj_weight
 *   k_proj_weight     E×kdim   } when kdim or vdim differs from E
 *   v_proj_weight     E×vdim   }
 *   in_proj_bias      3E       [b_q; b_k; b_v]    } both absent when bias=False
 *   out_proj.weight   E×E
 *   out_proj.bias     E                          }
 * </pre>
 * A prefix selects the module inside a larger state_dict: {@code "self_attn."} for a
 * {@code TransformerEncoderLayer}, {@code "state_dict."} in this project's fixtures. A prefix
 * without a trailing dot gets one, since PyTorch separates module names with dots. PyTorch does
 * not store the number of heads; the caller gives it. {@code add_bias_kv=True} ({@code bias_k},
 * {@code bias_v}) is not supported and refused. Tensors may be stored as F32, F64, F16 or BF16.
 */
public final class MultiHeadAttentionStateDict {

    /** PyTorch's name of the stacked q/k/v projection weight, 3E×E. */
    public static final String IN_PROJ_WEIGHT = "in_proj_weight";
    /** PyTorch's name of the stacked q/k/v projection bias, 3E. */
    public static final String IN_PROJ_BIAS = "in_proj_bias";
    /** PyTorch's name of the query projection weight when kdim or vdim differs from E, E×E. */
    public static final String Q_PROJ_WEIGHT = "q_proj_weight";
    /** PyTorch's name of the key projection weight when kdim or vdim differs from E, E×kdim. */
    public static final String K_PROJ_WEIGHT = "k_proj_weight";
    /** PyTorch's name of the value projection weight when kdim or vdim differs from E, E×vdim. */
    public static final String V_PROJ_WEIGHT = "v_proj_weight";
    /** PyTorch's name of the output projection weight, E×E. */
    public static final String OUT_PROJ_WEIGHT = "out_proj.weight";
    /** PyTorch's name of the output projection bias, E. */
    public static final String OUT_PROJ_BIAS = "out_proj.bias";
    /** PyTorch's extra key bias of {@code add_bias_kv=True}; not supported. */
    public static final String BIAS_K = "bias_k";
    /** PyTorch's extra value bias of {@code add_bias_kv=True}; not supported. */
    public static final String BIAS_V = "bias_v";

    private MultiHeadAttentionStateDict() {
    }

    /**
     * Loads the weights of an {@code nn.MultiheadAttention} from a safetensors file.
     *
     * @param file     a safetensors file holding the state_dict
     * @param prefix   the module's name prefix, {@code ""} for none
     * @param numHeads the number of heads, which PyTorch does not store
     * @return the weights
     * @throws IllegalArgumentException when {@code numHeads} is below 1 or does not divide E
     * @throws TensorFormatException naming the tensor (with its prefix) that is missing, mis-shaped
     *     or unsupported, or listing the file's names when the prefix matches none
     * @throws IOException when the file cannot be read
     */
    public static MultiHeadAttentionWeights load(Path file, String prefix, int numHeads) throws IOException {
        checkNumHeads(numHeads);
        return load(SafeTensors.read(file), prefix, numHeads);
    }

    /**
     * Loads the weights of an {@code nn.MultiheadAttention} from an opened safetensors file.
     *
     * @param tensors  the file
     * @param prefix   the module's name prefix, {@code ""} for none
     * @param numHeads the number of heads, which PyTorch does not store
     * @return the weights
     * @throws IllegalArgumentException when {@code numHeads} is below 1 or does not divide E
     * @throws TensorFormatException naming the tensor (with its prefix) that is missing, mis-shaped
     *     or unsupported, or listing the file's names when the prefix matches none
     * @throws IOException when the file cannot be read
     */
    public static MultiHeadAttentionWeights load(SafeTensors tensors, String prefix, int numHeads) throws IOException {
        Objects.requireNonNull(tensors, "tensors");
        checkNumHeads(numHeads);
        return new Loader(tensors, normalizePrefix(prefix)).load(numHeads);
    }

    private static void checkNumHeads(int numHeads) {
        if (numHeads < 1) {
            throw new IllegalArgumentException("numHeads must be >= 1, got " + numHeads);
        }
    }

    /**
     * The prefix as used in names: {@code null} and {@code ""} give {@code ""}, and a missing
     * trailing dot is added ({@code "self_attn"} gives {@code "self_attn."}).
     *
     * @param prefix a module name prefix, or null
     * @return the prefix to put before PyTorch's names
     */
    public static String normalizePrefix(String prefix) {
        if (prefix == null || prefix.isEmpty()) {
            return "";
        }
        return prefix.endsWith(".") ? prefix : prefix + ".";
    }

    /**
     * The weights as a PyTorch-named state_dict: {@code in_proj_weight} when kdim = vdim = E,
     * otherwise {@code q_proj_weight}, {@code k_proj_weight} and {@code v_proj_weight}; biases when
     * the weights have them. {@code nn.MultiheadAttention.load_state_dict} accepts the result.
     *
     * @param weights the weights; grouped-query weights ({@code numKvHeads < numHeads}) have no
     *                PyTorch counterpart and are refused
     * @param prefix  the module's name prefix, {@code ""} for none
     * @return the tensors by full name, F32
     * @throws IllegalArgumentException for grouped-query weights, or when some biases are present
     *     and others not (PyTorch has all four or none)
     */
    public static Map<String, Tensor> toTensors(MultiHeadAttentionWeights weights, String prefix) {
        Objects.requireNonNull(weights, "weights");
        String p = normalizePrefix(prefix);
        if (weights.numKvHeads() != weights.numHeads()) {
            throw new IllegalArgumentException("grouped-query weights (numKvHeads " + weights.numKvHeads()
                + " < numHeads " + weights.numHeads() + ") have no nn.MultiheadAttention state_dict");
        }
        int e = weights.embedDim();
        Map<String, Tensor> out = new LinkedHashMap<>();
        if (weights.kdim() == e && weights.vdim() == e) {
            // Stacked, not concatenated: a large model's 3E×E projection is written without a copy.
            out.put(p + IN_PROJ_WEIGHT, Tensor.f32Stacked(new float[][] {weights.qWeight(), weights.kWeight(),
                weights.vWeight()}, 3L * e, e));
        } else {
            out.put(p + Q_PROJ_WEIGHT, Tensor.f32(weights.qWeight(), e, e));
            out.put(p + K_PROJ_WEIGHT, Tensor.f32(weights.kWeight(), e, weights.kdim()));
            out.put(p + V_PROJ_WEIGHT, Tensor.f32(weights.vWeight(), e, weights.vdim()));
        }
        out.put(p + OUT_PROJ_WEIGHT, Tensor.f32(weights.outWeight(), e, e));
        List<float[]> biases = Arrays.asList(weights.qBias(), weights.kBias(), weights.vBias(), weights.outBias());
        long present = biases.stream().filter(Objects::nonNull).count();
        if (present == biases.size()) {
            out.put(p + IN_PROJ_BIAS, Tensor.f32(concat(weights.qBias(), weights.kBias(), weights.vBias()), 3L * e));
            out.put(p + OUT_PROJ_BIAS, Tensor.f32(weights.outBias(), e));
        } else if (present != 0) {
            throw new IllegalArgumentException("nn.MultiheadAttention has all four biases (q, k, v, out) or none; "
                + "these weights have " + present);
        }
        return out;
    }

    /**
     * Writes the weights as a PyTorch-named safetensors state_dict (see {@link #toTensors}),
     * atomically.
     *
     * @param file     the target file; its directory must exist
     * @param weights  the weights
     * @param prefix   the module's name prefix, {@code ""} for none
     * @param metadata string metadata for the header, or null
     * @throws IllegalArgumentException as {@link #toTensors} does
     * @throws IOException when the file cannot be written
     */
    public static void write(Path file, MultiHeadAttentionWeights weights, String prefix, Map<String, String> metadata)
        throws IOException {
        SafeTensorsWriter.write(file, toTensors(weights, prefix), metadata);
    }

    private static float[] concat(float[] a, float[] b, float[] c) {
        float[] out = Arrays.copyOf(a, a.length + b.length + c.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        System.arraycopy(c, 0, out, a.length + b.length, c.length);
        return out;
    }

    /** One load: the file, the prefix, and the checks that name tensors in full. */
    private static final class Loader {
        private final SafeTensors st;
        private final String prefix;

        Loader(SafeTensors st, String prefix) {
            this.st = st;
            this.prefix = prefix;
        }

        MultiHeadAttentionWeights load(int numHeads) throws IOException {
            List<String> underPrefix = st.namesStartingWith(prefix);
            if (underPrefix.isEmpty()) {
                throw new TensorFormatException(st.source(), null, "no tensor name starts with prefix '" + prefix
                    + "'; the file holds " + SafeTensorsHeader.someNames(st.names(), st.names().size()));
            }
            for (String unsupported : List.of(BIAS_K, BIAS_V)) {
                if (st.has(prefix + unsupported)) {
                    throw new TensorFormatException(st.source(), prefix + unsupported, "add_bias_kv=True ("
                        + prefix + BIAS_K + ", " + prefix + BIAS_V + ") is not supported");
                }
            }
            boolean packed = st.has(prefix + IN_PROJ_WEIGHT);
            boolean separate = st.has(prefix + Q_PROJ_WEIGHT) || st.has(prefix + K_PROJ_WEIGHT)
                || st.has(prefix + V_PROJ_WEIGHT);
            if (packed && separate) {
                throw new TensorFormatException(st.source(), prefix + IN_PROJ_WEIGHT, "present together with "
                    + prefix + Q_PROJ_WEIGHT + "/" + K_PROJ_WEIGHT + "/" + V_PROJ_WEIGHT
                    + "; a state_dict has one or the other");
            }
            if (!packed && !separate) {
                throw new TensorFormatException(st.source(), prefix + IN_PROJ_WEIGHT, "missing, and so is "
                    + prefix + Q_PROJ_WEIGHT + "; under prefix '" + prefix + "' the file holds "
                    + SafeTensorsHeader.someNames(underPrefix, underPrefix.size()));
            }
            int e;
            int kdim;
            int vdim;
            float[] qW;
            float[] kW;
            float[] vW;
            if (packed) {
                long[] s = st.shape(prefix + IN_PROJ_WEIGHT);
                if (s.length != 2 || s[1] < 1 || s[0] != 3 * s[1]) {
                    throw misShaped(IN_PROJ_WEIGHT, s, "[3E, E]");
                }
                e = dimension(IN_PROJ_WEIGHT, s[1]);
                checkHeads(numHeads, e);
                int block = squareBlock(IN_PROJ_WEIGHT, e);
                qW = st.floats(prefix + IN_PROJ_WEIGHT, 0, block);
                kW = st.floats(prefix + IN_PROJ_WEIGHT, block, block);
                vW = st.floats(prefix + IN_PROJ_WEIGHT, 2L * block, block);
                kdim = e;
                vdim = e;
            } else {
                long[] q = present(Q_PROJ_WEIGHT, "[E, E]");
                if (q.length != 2 || q[0] < 1 || q[0] != q[1]) {
                    throw misShaped(Q_PROJ_WEIGHT, q, "[E, E]");
                }
                e = dimension(Q_PROJ_WEIGHT, q[0]);
                checkHeads(numHeads, e);
                kdim = inputDim(K_PROJ_WEIGHT, e, "kdim");
                vdim = inputDim(V_PROJ_WEIGHT, e, "vdim");
                qW = st.floats(prefix + Q_PROJ_WEIGHT, 0, squareBlock(Q_PROJ_WEIGHT, e));
                kW = st.floats(prefix + K_PROJ_WEIGHT);
                vW = st.floats(prefix + V_PROJ_WEIGHT);
            }
            float[] outW = st.floats(checkShape(OUT_PROJ_WEIGHT, e, e));
            boolean inBias = st.has(prefix + IN_PROJ_BIAS);
            boolean outBias = st.has(prefix + OUT_PROJ_BIAS);
            if (inBias != outBias) {
                String missing = inBias ? OUT_PROJ_BIAS : IN_PROJ_BIAS;
                throw new TensorFormatException(st.source(), prefix + missing, "missing, but "
                    + prefix + (inBias ? IN_PROJ_BIAS : OUT_PROJ_BIAS)
                    + " is present; nn.MultiheadAttention has both biases (bias=True) or neither (bias=False)");
            }
            float[] qB = null;
            float[] kB = null;
            float[] vB = null;
            float[] outB = null;
            if (inBias) {
                String in = checkShape(IN_PROJ_BIAS, 3L * e);
                qB = st.floats(in, 0, e);
                kB = st.floats(in, e, e);
                vB = st.floats(in, 2L * e, e);
                outB = st.floats(checkShape(OUT_PROJ_BIAS, e));
            }
            return MultiHeadAttentionWeights.of(e, numHeads, kdim, vdim, qW, kW, vW, qB, kB, vB, outW, outB);
        }

        private void checkHeads(int numHeads, int e) {
            Heads.headDim(e, numHeads, "numHeads", "embed_dim E",
                " of the attention under prefix '" + prefix + "' in " + st.source());
        }

        /** The shape of a required tensor, or an error naming it with its expected shape. */
        private long[] present(String name, String expected) throws TensorFormatException {
            if (!st.has(prefix + name)) {
                List<String> underPrefix = st.namesStartingWith(prefix);
                throw new TensorFormatException(st.source(), prefix + name, "missing; expected shape " + expected
                    + "; under prefix '" + prefix + "' the file holds "
                    + SafeTensorsHeader.someNames(underPrefix, underPrefix.size()));
            }
            return st.shape(prefix + name);
        }

        /** Checks a required tensor's exact shape and returns its full name. */
        private String checkShape(String name, long... expected) throws TensorFormatException {
            long[] s = present(name, Arrays.toString(expected));
            if (!Arrays.equals(s, expected)) {
                throw misShaped(name, s, Arrays.toString(expected));
            }
            return prefix + name;
        }

        /** k/v projection E×dim: returns dim, the module's kdim or vdim. */
        private int inputDim(String name, int e, String dimName) throws TensorFormatException {
            String expected = "[" + e + ", " + dimName + "]";
            long[] s = present(name, expected);
            if (s.length != 2 || s[0] != e || s[1] < 1) {
                throw misShaped(name, s, expected);
            }
            int dim = dimension(name, s[1]);
            if ((long) e * dim > SafeTensors.MAX_ARRAY_LENGTH) {
                throw new TensorFormatException(st.source(), prefix + name, "shape " + Arrays.toString(s)
                    + " is too large for one Java array");
            }
            return dim;
        }

        private int dimension(String name, long d) throws TensorFormatException {
            if (d > Integer.MAX_VALUE) {
                throw new TensorFormatException(st.source(), prefix + name, "dimension " + d + " exceeds "
                    + Integer.MAX_VALUE);
            }
            return (int) d;
        }

        /** E×E as an array length, or an error when one block does not fit a Java array. */
        private int squareBlock(String name, int e) throws TensorFormatException {
            long n = (long) e * e;
            if (n > SafeTensors.MAX_ARRAY_LENGTH) {
                throw new TensorFormatException(st.source(), prefix + name, "an E×E block with E = " + e
                    + " is too large for one Java array");
            }
            return (int) n;
        }

        private TensorFormatException misShaped(String name, long[] found, String expected) {
            return new TensorFormatException(st.source(), prefix + name, "has shape " + Arrays.toString(found)
                + ", expected " + expected);
        }
    }
}

package io.sparkattention.gpt;

import io.sparkattention.kernel.LinearKernel;
import io.sparkattention.nn.ParameterTensor;
import io.sparkattention.nn.TrainableNetwork;
import io.sparkattention.nn.TrainingEvaluator;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A GPT-2 causal language model (Hugging Face's {@code GPT2LMHeadModel}, the head tied to
 * {@code wte}) as a network the training engine trains on {@link TokenBlock}s: the loss of a step
 * is the sum of every block's −log-likelihood of its predicted tokens (weighted) over the sum of
 * its predicted tokens (weighted), make_gpt_fixtures.py's training loss.
 *
 * <p><b>The flat vector</b> holds every tensor of {@link GptWeights#shapes} in that order, under
 * Hugging Face's names without prefix ({@code wte.weight}, {@code wpe.weight},
 * {@code h.N.ln_1.weight}, … {@code ln_f.bias}) and in GPT-2's Conv1D layout ({@code [in, out]});
 * no {@code lm_head.weight}: the head is wte. The AdamW groups are GPT-2's (nanoGPT's, Hugging
 * Face Trainer's for GPT-2): decay on the 2-D tensors (wte, wpe, the four projection matrices of
 * each layer), none on biases and LayerNorm parameters ({@link ParameterTensor#decayed()}, set
 * explicitly). {@code wpe} is row-sparse (a step touches the rows of its longest block's
 * positions); {@code wte} is not, because the tied head's gradient reaches every row.
 *
 * <p><b>Dropout</b> p (training binds only) where GPT-2 places it: after wte + wpe, on the
 * attention probabilities, after each c_proj (attention and MLP) before its residual; counter-based
 * masks keyed by (seed, step, block key, site, element) ({@link io.sparkattention.bert.DropoutMask}).
 *
 * <p>Immutable and serializable: the config, p and the layout.
 */
public final class GptTrainingNetwork implements TrainableNetwork<TokenBlock> {

    private static final long serialVersionUID = 1L;

    private final GptConfig config;
    private final double dropout;
    /** The projection kernel's name, or null for the JVM's ({@link LinearKernel#get()}). */
    private final String linearKernel;
    private final List<ParameterTensor> parameters;
    private final Map<String, ParameterTensor> byName;
    private final int parameterCount;
    /** The weights last prepared ({@link #prepared}); not serialized. */
    private transient GptTrainingWeights prepared;

    /**
     * @param config  the architecture; its head must be tied (GPT-2's)
     * @param dropout GPT-2's dropout p in training, in [0, 1)
     * @throws IllegalArgumentException when the head is untied, p is out of range or the
     *                                  parameters do not fit one array
     */
    public GptTrainingNetwork(GptConfig config, double dropout) {
        this(config, dropout, null);
    }

    /**
     * A network whose projections run on a named kernel ({@link LinearKernel#named}: {@code vector},
     * {@code blas}), for side-by-side tests and benchmarks, as {@link GptDecoder#GptDecoder(GptWeights, String)};
     * null for the JVM's. On a kernel whose rows are not independent each block runs a pass alone.
     *
     * @throws IllegalArgumentException as {@link #GptTrainingNetwork(GptConfig, double)}, or for an unknown kernel
     */
    public GptTrainingNetwork(GptConfig config, double dropout, String linearKernel) {
        this.config = Objects.requireNonNull(config, "config");
        if (linearKernel != null) {
            LinearKernel.named(linearKernel);
        }
        this.linearKernel = linearKernel;
        if (!config.tiedHead()) {
            throw new IllegalArgumentException("training needs the LM head tied to wte (tie_word_embeddings true), got "
                + config);
        }
        if (!(dropout >= 0 && dropout < 1)) {
            throw new IllegalArgumentException("dropout must be in [0, 1), got " + dropout);
        }
        this.dropout = dropout;
        List<ParameterTensor> list = new ArrayList<>();
        Map<String, ParameterTensor> names = new LinkedHashMap<>();
        long offset = 0;
        for (Map.Entry<String, long[]> e : GptWeights.shapes(config).entrySet()) {
            long[] shape = e.getValue();
            long size = 1;
            int[] s = new int[shape.length];
            for (int i = 0; i < shape.length; i++) {
                size *= shape[i];
                s[i] = (int) shape[i];
            }
            if (offset + size > Integer.MAX_VALUE - 8) {
                throw new IllegalArgumentException("the parameters reach " + e.getKey() + " beyond "
                    + (Integer.MAX_VALUE - 8) + " values: too many for one array");
            }
            ParameterTensor t = ParameterTensor.of(e.getKey(), (int) offset, shape.length >= 2, s);
            list.add(t);
            names.put(t.name(), t);
            offset += size;
        }
        this.parameters = Collections.unmodifiableList(list);
        this.byName = Collections.unmodifiableMap(names);
        this.parameterCount = (int) offset;
    }

    public GptConfig config() {
        return config;
    }

    /** The dropout p of training binds. */
    public double dropout() {
        return dropout;
    }

    @Override
    public List<ParameterTensor> parameters() {
        return parameters;
    }

    @Override
    public int parameterCount() {
        return parameterCount;
    }

    /** {@code wpe.weight} (index 1): its gradient is the rows of the positions a step's blocks use. */
    @Override
    public int[] rowSparseTensors() {
        return new int[] {1};
    }

    /**
     * The tensor named {@code name}.
     *
     * @throws IllegalArgumentException when there is none
     */
    public ParameterTensor parameter(String name) {
        ParameterTensor t = byName.get(name);
        if (t == null) {
            throw new IllegalArgumentException("no tensor " + name + " in " + config);
        }
        return t;
    }

    /**
     * {@inheritDoc} The weights are prepared once per vector of values in this JVM and shared by
     * every evaluator bound to it (the threads and tasks of a step); each evaluator has its own
     * records and pending sums.
     */
    @Override
    public TrainingEvaluator<TokenBlock> bind(float[] theta, boolean training, long seed, long step) {
        checkTheta(theta);
        return new GptTrainingEvaluator(this, prepared(theta), training, seed, step);
    }

    /**
     * The weights of {@code theta} prepared for this JVM's kernels: the last ones prepared when
     * they hold the same values (compared bit for bit, so a vector updated in place is prepared
     * anew), else new ones, which replace them.
     */
    synchronized GptTrainingWeights prepared(float[] theta) {
        GptTrainingWeights p = prepared;
        if (p == null || !p.holds(this, theta)) {
            p = new GptTrainingWeights(this, theta);
            prepared = p;
        }
        return p;
    }

    /**
     * {@code weights} as this network's flat vector (a new array).
     *
     * @throws IllegalArgumentException when the weights' config is not this network's
     */
    public float[] flatten(GptWeights weights) {
        Objects.requireNonNull(weights, "weights");
        if (!weights.config().equals(config)) {
            throw new IllegalArgumentException("weights of " + weights.config() + " for a network of " + config);
        }
        float[] theta = new float[parameterCount];
        for (ParameterTensor t : parameters) {
            System.arraycopy(weights.tensor(t.name()), 0, theta, t.offset(), t.size());
        }
        return theta;
    }

    /**
     * The decoder's weights at {@code theta} (each tensor copied out): {@code new GptDecoder(weights(theta))}
     * scores and generates with them, and they export as a Hugging Face GPT-2 directory.
     *
     * @throws IllegalArgumentException when theta's length is not {@link #parameterCount()}
     */
    public GptWeights weights(float[] theta) {
        checkTheta(theta);
        Map<String, float[]> tensors = new LinkedHashMap<>();
        for (ParameterTensor t : parameters) {
            tensors.put(t.name(), t.slice(theta));
        }
        return GptWeights.of(config, tensors);
    }

    /** GPT-2's seeded initialisation ({@link GptInit}) as this network's flat vector. */
    public float[] initialParameters(long seed) {
        return flatten(GptInit.weights(config, seed));
    }

    /** The projection kernel of this JVM's evaluators. */
    LinearKernel linearKernel() {
        return linearKernel == null ? LinearKernel.get() : LinearKernel.named(linearKernel);
    }

    /** The flat offsets of layer n's twelve tensors. */
    GptTrainingBlock.Offsets layerOffsets(int n) {
        String p = GptWeights.layerPrefix(n);
        return new GptTrainingBlock.Offsets(offset(p + "ln_1.weight"), offset(p + "ln_1.bias"),
            offset(p + "attn.c_attn.weight"), offset(p + "attn.c_attn.bias"), offset(p + "attn.c_proj.weight"),
            offset(p + "attn.c_proj.bias"), offset(p + "ln_2.weight"), offset(p + "ln_2.bias"),
            offset(p + "mlp.c_fc.weight"), offset(p + "mlp.c_fc.bias"), offset(p + "mlp.c_proj.weight"),
            offset(p + "mlp.c_proj.bias"));
    }

    private int offset(String name) {
        return parameter(name).offset();
    }

    private void checkTheta(float[] theta) {
        Objects.requireNonNull(theta, "parameters");
        if (theta.length != parameterCount) {
            throw new IllegalArgumentException("parameter vector has " + theta.length + " values, expected "
                + parameterCount + " for " + config);
        }
    }
}

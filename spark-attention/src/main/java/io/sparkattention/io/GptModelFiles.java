package io.sparkattention.io;

import io.sparkattention.bert.BertWeights;
import io.sparkattention.gpt.GptConfig;
import io.sparkattention.gpt.GptDecoder;
import io.sparkattention.gpt.GptWeights;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A GPT-2-family decoder ({@link GptDecoder}) from a Hugging Face model directory as
 * {@code save_pretrained} writes it, and back.
 *
 * <p><b>Reading</b>: {@value #CONFIG} ({@link GptConfig#fromHuggingFaceJson}) and
 * {@value #WEIGHTS} under {@link GptWeights}'s names, with or without the {@value #PREFIX}
 * prefix of a {@code GPT2LMHeadModel}; the {@code h.N.attn.bias} and {@code h.N.attn.masked_bias}
 * buffers of older checkpoints, and any tensor that is no parameter, are ignored. An
 * {@code lm_head.weight} is honoured as an untied head when the config unties the head or the
 * tensor differs from {@code wte.weight}; one equal to it is the tied head. Float tensors of any
 * width (F32, F16, BF16, F64) are read as float32.
 *
 * <p><b>Writing</b>: the same two files, no prefix, the head tied unless it is not, each file
 * written atomically ({@link AtomicFiles}), loadable by {@code GPT2LMHeadModel.from_pretrained}.
 * {@value #TOKENIZER} in the directory is the tokenizer, read by the stages, not here.
 */
public final class GptModelFiles {

    /** The config file of a model directory. */
    public static final String CONFIG = "config.json";
    /** The weights file of a model directory. */
    public static final String WEIGHTS = "model.safetensors";
    /** The tokenizer file of a model directory. */
    public static final String TOKENIZER = "tokenizer.json";
    /** The name prefix of a {@code GPT2LMHeadModel}'s transformer. */
    public static final String PREFIX = "transformer.";

    private GptModelFiles() {
    }

    /**
     * A decoder from a model directory.
     *
     * @throws NoSuchFileException      naming {@value #CONFIG} or {@value #WEIGHTS} when missing
     * @throws IllegalArgumentException naming the config file and the field it cannot run
     * @throws TensorFormatException    naming the weights file and the tensor missing or mis-shaped
     * @throws IOException              when a file cannot be read
     */
    public static GptDecoder read(Path dir) throws IOException {
        Objects.requireNonNull(dir, "dir");
        Path configFile = dir.resolve(CONFIG);
        Path weightsFile = dir.resolve(WEIGHTS);
        if (!Files.isRegularFile(configFile)) {
            throw new NoSuchFileException(configFile.toString(), null, "a GPT model directory needs " + CONFIG);
        }
        if (!Files.isRegularFile(weightsFile)) {
            throw new NoSuchFileException(weightsFile.toString(), null, "a GPT model directory needs " + WEIGHTS);
        }
        GptConfig config = GptConfig.fromHuggingFaceJson(Files.readString(configFile, StandardCharsets.UTF_8),
            configFile.toString());
        return new GptDecoder(weights(config, SafeTensors.read(weightsFile)));
    }

    /**
     * The weights of {@code config} from a safetensors file (with or without {@value #PREFIX}).
     *
     * @throws TensorFormatException naming the file and the first tensor missing or mis-shaped
     */
    public static GptWeights weights(GptConfig config, SafeTensors file) throws IOException {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(file, "file");
        String p = file.has(PREFIX + GptWeights.TOKEN_EMBEDDING) ? PREFIX : "";
        GptConfig c = config;
        if (c.tiedHead() && file.has(GptWeights.HEAD_WEIGHT)) {
            float[] head = file.floats(GptWeights.HEAD_WEIGHT);
            if (!Arrays.equals(head, file.has(p + GptWeights.TOKEN_EMBEDDING)
                ? file.floats(p + GptWeights.TOKEN_EMBEDDING) : null)) {
                c = new GptConfig(c.layers(), c.hidden(), c.heads(), c.positions(), c.vocabSize(), c.inner(),
                    c.layerNormEps(), c.activation(), false);
            }
        }
        Map<String, float[]> tensors = new LinkedHashMap<>();
        for (Map.Entry<String, long[]> e : GptWeights.shapes(c).entrySet()) {
            String name = e.getKey().equals(GptWeights.HEAD_WEIGHT) ? e.getKey() : p + e.getKey();
            if (!file.has(name)) {
                throw new TensorFormatException(file.source(), name, "not found"
                    + (p.isEmpty() ? "" : " (prefix \"" + p + "\")"));
            }
            long[] shape = file.shape(name);
            if (!Arrays.equals(shape, e.getValue())) {
                throw new TensorFormatException(file.source(), name, "has shape " + BertWeights.shapeText(shape)
                    + ", expected " + BertWeights.shapeText(e.getValue()) + " for " + c);
            }
            tensors.put(e.getKey(), file.floats(name));
        }
        return GptWeights.of(c, tensors);
    }

    /**
     * Writes {@value #CONFIG} and {@value #WEIGHTS} into {@code dir} (created when missing), each
     * atomically; {@link #read} gives the decoder back bit for bit.
     *
     * @throws IOException when a file cannot be written; a file not yet replaced is unchanged
     */
    public static void write(GptDecoder decoder, Path dir) throws IOException {
        Objects.requireNonNull(decoder, "decoder");
        Objects.requireNonNull(dir, "dir");
        Files.createDirectories(dir);
        GptWeights w = decoder.weights();
        Map<String, long[]> shapes = GptWeights.shapes(w.config());
        Map<String, Tensor> tensors = new LinkedHashMap<>();
        for (Map.Entry<String, float[]> e : w.stateDict().entrySet()) {
            tensors.put(e.getKey(), Tensor.f32(e.getValue(), shapes.get(e.getKey())));
        }
        SafeTensorsWriter.write(dir.resolve(WEIGHTS), tensors, Map.of("format", "pt"));
        byte[] config = w.config().toHuggingFaceJson().getBytes(StandardCharsets.UTF_8);
        AtomicFiles.write(dir.resolve(CONFIG), out -> out.write(config));
    }

    /** The directory's {@value #TOKENIZER}, when it has one. */
    public static Optional<Path> tokenizer(Path dir) {
        Path t = Objects.requireNonNull(dir, "dir").resolve(TOKENIZER);
        return Files.isRegularFile(t) ? Optional.of(t) : Optional.empty();
    }
}

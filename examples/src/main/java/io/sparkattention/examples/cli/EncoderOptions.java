package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.OutputGuard;
import io.sparkattention.bert.BertClassifierNetwork;
import io.sparkattention.examples.common.BadInputException;
import io.sparkattention.io.BertModelFiles;
import io.sparkattention.io.BundledModels;
import io.sparkattention.io.SafeTensors;
import io.sparkattention.ml.feature.BertEncoderModel;
import io.sparkattention.ml.feature.HuggingFaceTokenizer;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The encoder a command runs, the same options in {@code embed} and {@code fine-tune}: a bundled
 * model or a model file (ONNX, or Hugging Face safetensors with its heads), the tokenizer that goes
 * with a file, and the token limit. {@link #check} settles which options go together before any
 * file is read; {@link #encoder} and {@link #tokenizer} read them, naming the option on failure.
 */
public final class EncoderOptions {

    /** The shortest --max-length: [CLS] and [SEP] are two of its tokens. */
    static final int MIN_MAX_LENGTH = 2;

    @Option(names = "--model", paramLabel = "NAME",
        description = "A bundled model: " + BundledModels.ALL_MINILM_L6_V2 + " (the default when neither --onnx nor "
            + "--safetensors is given); embed also takes a directory fine-tune wrote (its fine-tuned encoder and "
            + "tokenizer).")
    String model;

    @Option(names = "--onnx", paramLabel = "M.onnx",
        description = "A BERT-family encoder as ONNX (as Hugging Face's exporters write it).")
    String onnx;

    @Option(names = "--safetensors", paramLabel = "M.safetensors",
        description = "A Hugging Face BertModel as safetensors (its heads from the file's metadata, "
            + "num_attention_heads, or --num-heads).")
    String safetensors;

    @Option(names = "--prefix", defaultValue = "", paramLabel = "P",
        description = "Name prefix of the encoder in the safetensors file, e.g. bert. (default: none).")
    String prefix;

    @Option(names = "--tokenizer", paramLabel = "T.json",
        description = "The model's Hugging Face tokenizer.json, with --onnx or --safetensors when texts are "
            + "tokenized.")
    String tokenizer;

    @Option(names = "--num-heads", paramLabel = "H",
        description = "Attention heads: with --safetensors, needed when the file's metadata does not record them (no "
            + "tensor shows them); with --onnx, checked against the graph's. Must divide the hidden width.")
    Integer numHeads;

    @Option(names = "--max-length", defaultValue = "256", paramLabel = "N",
        description = "Longest text in tokens, [CLS] and [SEP] included; longer texts are truncated (default "
            + "${DEFAULT-VALUE}, sentence-transformers' for all-MiniLM-L6-v2).")
    int maxLength;

    /** The model file's option (--onnx or --safetensors), or null for a bundled model or directory. */
    String fileOption() {
        return onnx != null ? "--onnx" : safetensors != null ? "--safetensors" : null;
    }

    /**
     * Checks the options that go together, reading no file: one model source, heads exactly with a
     * file, the prefix with safetensors, --max-length ≥ 2, and a tokenizer exactly with a model file
     * when texts are tokenized.
     *
     * @param tokenizes       whether the command tokenizes texts (else it reads token ids)
     * @param modelHasOwnTokenizer whether --model names something that carries a tokenizer a
     *                        --tokenizer may replace (embed's fine-tuned directory)
     */
    void check(boolean tokenizes, boolean modelHasOwnTokenizer) {
        String file = fileOption();
        if (onnx != null && safetensors != null) {
            throw new BadInputException("--onnx and --safetensors both given: name one model file");
        }
        if (model != null && file != null) {
            throw new BadInputException("--model and " + file + " both given: a bundled model or a model file, not both");
        }
        if (model != null && isPath(model) && !Files.isDirectory(Path.of(model))) {
            throw new BadInputException("--model " + model + ": " + (Files.exists(Path.of(model))
                ? "not a directory (a bundled model's name, or a directory fine-tune wrote)" : "no such directory"));
        }
        if (safetensors != null && numHeads == null && OutputGuard.isRemote(safetensors)) {
            throw new BadInputException("--safetensors " + safetensors + " on another file system needs --num-heads");
        }
        if (file == null && numHeads != null) {
            throw new BadInputException("--num-heads goes with --onnx or --safetensors");
        }
        if (numHeads != null && numHeads < 1) {
            throw new BadInputException("--num-heads must be >= 1, got " + numHeads);
        }
        if (safetensors == null && !prefix.isEmpty()) {
            throw new BadInputException("--prefix goes with --safetensors");
        }
        if (maxLength < MIN_MAX_LENGTH) {
            throw new BadInputException("--max-length must be >= " + MIN_MAX_LENGTH + " ([CLS] and [SEP] count), got "
                + maxLength);
        }
        if (!tokenizes) {
            if (tokenizer != null) {
                throw new BadInputException("--tokenizer goes with --text-col; --ids-col reads ids as they are");
            }
            return;
        }
        if (file != null && tokenizer == null) {
            throw new BadInputException(file + " needs --tokenizer (the model's tokenizer.json)");
        }
        if (file == null && tokenizer != null && !modelHasOwnTokenizer) {
            throw new BadInputException("--tokenizer goes with --onnx or --safetensors; the bundled model has its own");
        }
    }

    /** Whether --model's value is written as a path (it has a separator or starts with . or ~), not as a name. */
    static boolean isPath(String value) {
        return value.contains("/") || value.contains(java.io.File.separator) || value.startsWith(".")
            || value.startsWith("~");
    }

    /** The model and tokenizer files the options name, by option. */
    Map<String, String> files() {
        Map<String, String> files = new LinkedHashMap<>();
        if (onnx != null) {
            files.put("--onnx", onnx);
        }
        if (safetensors != null) {
            files.put("--safetensors", safetensors);
        }
        if (tokenizer != null) {
            files.put("--tokenizer", tokenizer);
        }
        return files;
    }

    /** The bundled model's name: --model, or the default. */
    String bundledName() {
        return model != null ? model : BundledModels.ALL_MINILM_L6_V2;
    }

    /** The encoder of the model file, or of the bundled model; a failure names the option. */
    BertEncoderModel encoder() {
        String option = onnx != null ? "--onnx" : safetensors != null ? "--safetensors" : "--model";
        try {
            if (onnx != null) {
                return BertEncoderModel.fromOnnx(onnx, numHeads == null ? 0 : numHeads);
            }
            if (safetensors != null) {
                return BertEncoderModel.fromSafeTensors(safetensors, prefix, numHeads != null ? numHeads
                    : metadataHeads());
            }
            return BertEncoderModel.pretrained(bundledName());
        } catch (UncheckedIOException e) {
            throw new BadInputException(option + ": " + ErrorReporting.oneLine(e.getMessage()), e);
        } catch (IllegalArgumentException | IllegalStateException e) {
            String m = ErrorReporting.oneLine(e.getMessage());
            throw new BadInputException(m.contains("numHeads (") ? m.replace("numHeads (", "--num-heads (")
                : (numHeads != null && m.contains("heads") ? "--num-heads: " : option + ": ") + m, e);
        }
    }

    /** The heads the --safetensors file's metadata records (Hugging Face's num_attention_heads). */
    private int metadataHeads() {
        String heads;
        try {
            heads = SafeTensors.read(Path.of(safetensors)).metadata().get(BertModelFiles.META_HEADS);
        } catch (IOException e) {
            throw new BadInputException("--safetensors: " + ErrorReporting.oneLine(e.getMessage()), e);
        }
        if (heads == null || !heads.matches("[1-9][0-9]{0,5}")) {
            throw new BadInputException("--safetensors " + safetensors + ": its metadata records no "
                + BertModelFiles.META_HEADS + (heads == null ? "" : " (it records '" + heads + "')")
                + "; give the encoder's heads with --num-heads");
        }
        return Integer.parseInt(heads);
    }

    /**
     * Whether the --safetensors file also holds a classifier head ({@code classifier.weight} and
     * {@code classifier.bias}, as fine-tune's --export-pytorch and Hugging Face's
     * BertForSequenceClassification write it).
     */
    boolean safetensorsHasHead() {
        if (safetensors == null || OutputGuard.isRemote(safetensors)) {
            return false;
        }
        try {
            SafeTensors file = SafeTensors.read(Path.of(safetensors));
            return file.has(BertClassifierNetwork.CLASSIFIER_WEIGHT) && file.has(BertClassifierNetwork.CLASSIFIER_BIAS);
        } catch (IOException e) {
            throw new BadInputException("--safetensors: " + ErrorReporting.oneLine(e.getMessage()), e);
        }
    }

    /** The tokenizer --tokenizer names, or the bundled model's; a failure names the option. */
    HuggingFaceTokenizer tokenizer() {
        try {
            return tokenizer != null ? HuggingFaceTokenizer.fromPath(tokenizer)
                : HuggingFaceTokenizer.pretrained(bundledName());
        } catch (UncheckedIOException | IllegalArgumentException | IllegalStateException e) {
            throw new BadInputException((tokenizer != null ? "--tokenizer: " : "--model: ")
                + ErrorReporting.oneLine(e.getMessage()), e);
        }
    }

    /** --max-length is at most the encoder's positions. */
    void checkMaxLength(BertEncoderModel encoder) {
        int positions = encoder.encoder().config().maxPositions();
        if (maxLength > positions) {
            throw new BadInputException("--max-length " + maxLength + " is longer than the model's " + positions
                + " positions");
        }
    }
}

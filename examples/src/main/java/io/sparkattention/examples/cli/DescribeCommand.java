package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sparkattention.io.BundledModels;
import io.sparkattention.ml.feature.BertEncoderModel;
import io.sparkattention.ml.feature.HuggingFaceTokenizer;
import io.sparkattention.bert.BertConfig;
import io.sparkattention.gpt.GptConfig;
import io.sparkattention.ml.classification.BertClassificationModel;
import io.sparkattention.ml.lm.GptLanguageModel;
import org.apache.spark.ml.feature.IndexToString;
import org.apache.spark.ml.Transformer;
import org.apache.spark.ml.classification.ClassificationModel;
import org.apache.spark.ml.param.ParamPair;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code spark-attention describe MODEL}: a bundled encoder's or a saved model's configuration as
 * one JSON object on stdout.
 */
@Command(name = "describe", mixinStandardHelpOptions = true,
    description = {"Prints a model's configuration as one JSON object on stdout: for a Hugging Face GPT-2 directory "
        + "(config.json, model.safetensors) its layers, hidden width, heads, inner width, vocabulary, positions, "
        + "activation and whether it has a tokenizer.json; for a bundled encoder (e.g. "
        + BundledModels.ALL_MINILM_L6_V2 + ") its layers, hidden width, heads, vocabulary, positions, pooling and the "
        + "tokenizer's default max_length; for a saved model directory (train's --output, the demo's model/, any "
        + "saved PipelineModel) each stage's class and set params, with the encoder's configuration, the "
        + "tokenizer's max_length and a classifier's classes and feature width; for fine-tune's output the "
        + "encoder's configuration, the classes, what was fine-tuned and, for string labels, the labels by index.",
        "Exit codes: 0 success; 2 bad input (one line on stderr); 1 internal error."})
final class DescribeCommand implements Callable<Integer> {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Parameters(index = "0", paramLabel = "MODEL", description = "A bundled model's name or a saved model directory.")
    String model;

    @Mixin
    MasterOption master;

    @Mixin
    VerboseOption verbose;

    @Override
    public Integer call() throws Exception {
        ObjectNode out;
        try (QuietLogs quiet = verbose.quietLogs()) {
            if (isGptDirectory(model)) {
                out = gptDirectory(model);
            } else if (Files.isDirectory(Paths.get(model)) || model.contains("://")) {
                SavedModel saved = SavedModel.read(model);
                saved.checkLoadable();
                master.start("describe");
                Transformer loaded = saved.load(model);
                out = JSON.createObjectNode().put("model", model);
                ArrayNode stages = out.putArray("stages");
                ObjectNode classifier = null;
                for (Transformer stage : ModelRows.stages(loaded)) {
                    ObjectNode described = stage(stage);
                    stages.add(described);
                    if (stage instanceof ClassificationModel) {
                        classifier = described;
                    } else if (stage instanceof IndexToString && classifier != null) {
                        // The labels by index the classifier's prediction is turned into.
                        classifier.set("labels", JSON.valueToTree(((IndexToString) stage).getLabels()));
                    }
                }
            } else {
                out = bundled(model.strip().toLowerCase(Locale.ROOT));
            }
        }
        System.out.println(JSON.writeValueAsString(out));
        System.out.flush();
        return 0;
    }

    /** A Hugging Face model directory (config.json, no MLlib metadata): a GPT-2 directory. */
    private static boolean isGptDirectory(String model) {
        Path dir = Paths.get(model);
        return Files.isRegularFile(dir.resolve("config.json")) && !Files.isDirectory(dir.resolve("metadata"));
    }

    /** A GPT-2 directory's config (read without its weights) and whether it has a tokenizer. */
    private static ObjectNode gptDirectory(String model) throws IOException {
        Path dir = Paths.get(model);
        GptConfig config;
        try {
            config = GptConfig.fromHuggingFaceJson(Files.readString(dir.resolve("config.json")),
                dir.resolve("config.json").toString());
        } catch (IllegalArgumentException e) {
            throw new BadInputException("MODEL " + ErrorReporting.oneLine(e.getMessage()), e);
        }
        ObjectNode out = JSON.createObjectNode().put("model", model).put("class", "GptLanguageModel");
        gpt(out, config);
        out.put("weights", Files.isRegularFile(dir.resolve("model.safetensors")) ? "model.safetensors" : "missing")
            .put("tokenizer", Files.isRegularFile(dir.resolve("tokenizer.json")));
        return out;
    }

    private static void gpt(ObjectNode out, GptConfig c) {
        out.put("layers", c.layers()).put("hidden", c.hidden()).put("heads", c.heads()).put("inner", c.inner())
            .put("vocabulary", c.vocabSize()).put("positions", c.positions()).put("activation", c.activation())
            .put("layer_norm_epsilon", c.layerNormEps()).put("tied_head", c.tiedHead());
    }

    private static ObjectNode bundled(String name) {
        HuggingFaceTokenizer tokenizer;
        BertEncoderModel encoder;
        try {
            tokenizer = HuggingFaceTokenizer.pretrained(name);
            encoder = BertEncoderModel.pretrained(name);
        } catch (IllegalArgumentException e) {
            throw new BadInputException("MODEL " + name + ": neither a directory nor a bundled model (bundled: "
                + BundledModels.ALL_MINILM_L6_V2 + ")", e);
        }
        ObjectNode out = JSON.createObjectNode().put("model", name).put("class", "BertEncoderModel");
        encoder(out, encoder);
        out.putObject("tokenizer").put("max_length", tokenizer.getMaxLength());
        return out;
    }

    /** One stage: its class, the params set on it, and what its kind adds. */
    private static ObjectNode stage(Transformer stage) {
        ObjectNode out = JSON.createObjectNode().put("class", stage.getClass().getSimpleName());
        ObjectNode params = out.putObject("params");
        for (ParamPair<?> p : scala.jdk.javaapi.CollectionConverters.asJava(stage.extractParamMap().toSeq())) {
            Object v = p.value();
            if (v instanceof Number || v instanceof Boolean || v instanceof String || v instanceof String[]) {
                params.set(p.param().name(), JSON.valueToTree(v));
            }
        }
        if (stage instanceof BertEncoderModel) {
            encoder(out, (BertEncoderModel) stage);
        }
        if (stage instanceof GptLanguageModel) {
            gpt(out, ((GptLanguageModel) stage).decoder().config());
        }
        if (stage instanceof HuggingFaceTokenizer) {
            out.putObject("tokenizer").put("max_length", ((HuggingFaceTokenizer) stage).getMaxLength());
        }
        if (stage instanceof BertClassificationModel) {
            fineTuned(out, (BertClassificationModel) stage);
        } else if (stage instanceof ClassificationModel) {
            ClassificationModel<?, ?> c = (ClassificationModel<?, ?>) stage;
            out.put("classes", c.numClasses()).put("features", c.numFeatures());
        }
        return out;
    }

    /**
     * A fine-tuned classifier: its encoder's configuration, its classes and what was fine-tuned
     * (its labels by index come from the IndexToString stage after it).
     */
    private static void fineTuned(ObjectNode out, BertClassificationModel model) {
        BertConfig c = model.encoder().config();
        out.putObject("encoder").put("layers", c.layers()).put("hidden", c.hidden()).put("heads", c.heads())
            .put("intermediate", c.intermediate()).put("vocabulary", c.vocabSize()).put("positions", c.maxPositions());
        int trained = model.getTrainableLayers();
        out.put("classes", model.numClasses()).put("pooling", model.getPooling())
            .put("fine_tuned", trained < 0 || trained >= c.layers() ? "every layer, the embeddings and the head"
                : trained == 0 ? "the head only (the encoder frozen)"
                : "the top " + trained + " of " + c.layers() + " layers and the head");
    }

    private static void encoder(ObjectNode out, BertEncoderModel encoder) {
        BertConfig c = encoder.encoder().config();
        out.put("layers", c.layers()).put("hidden", c.hidden()).put("heads", c.heads())
            .put("intermediate", c.intermediate()).put("vocabulary", c.vocabSize()).put("positions", c.maxPositions())
            .put("pooling", encoder.getPooling()).put("normalize", encoder.getNormalize());
    }
}

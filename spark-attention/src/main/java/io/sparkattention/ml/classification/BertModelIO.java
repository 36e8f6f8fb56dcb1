package io.sparkattention.ml.classification;

import io.sparkattention.bert.BertClassifierNetwork;
import io.sparkattention.bert.BertEncoder;
import io.sparkattention.io.BertModelFiles;
import io.sparkattention.io.ClassifierStateDict;
import io.sparkattention.io.SafeTensors;
import io.sparkattention.io.Tensor;
import io.sparkattention.nn.ParameterTensor;
import io.sparkattention.nn.Pooling;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.ml.util.MLWriter;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link BertClassificationModel}'s files. A saved model holds MLlib's params metadata under
 * {@code path/metadata} and one safetensors file under {@code path/data/model.safetensors}: every
 * encoder tensor under Hugging Face {@code BertModel} names (no prefix) plus
 * {@code classifier.weight} [K, E] and {@code classifier.bias} [K], F32, with the heads, the
 * LayerNorm ε and the pooling in its {@code __metadata__} — the file {@code exportPyTorch}
 * writes, which a PyTorch {@code BertModel} plus {@code nn.Linear} head loads.
 */
final class BertModelIO {

    /** The weights file under a saved model's {@code data} directory. */
    static final String WEIGHTS_FILE = "model.safetensors";
    /** {@code __metadata__} key of the pooling. */
    static final String POOLING = "pooling";

    private BertModelIO() {
    }

    /** Writes every tensor of the model to a new file. */
    static void exportPyTorch(BertClassificationModel model, String path, Configuration conf) {
        BertEncoder encoder = model.encoder();
        Map<String, Tensor> tensors = new LinkedHashMap<>(BertModelFiles.toTensors(encoder));
        int k = model.numClasses();
        tensors.put(BertClassifierNetwork.CLASSIFIER_WEIGHT,
            Tensor.f32(model.classifierWeight(), k, encoder.config().hidden()));
        tensors.put(BertClassifierNetwork.CLASSIFIER_BIAS, Tensor.f32(model.classifierBias(), k));
        Map<String, String> metadata = new LinkedHashMap<>(BertModelFiles.metadata(encoder.config()));
        metadata.put(POOLING, PoolingNames.bertName(model.poolingMode()));
        metadata.put("format", BertClassificationModel.EXPORT_FORMAT);
        ClassifierFiles.write(path, tensors, metadata, conf);
    }

    /**
     * A model from an exported file: the encoder's tensors under {@code prefix}, the head without.
     *
     * @param numHeads the heads, or 0 to take them from the file's metadata
     * @param pooling  {@code mean} or {@code cls}, or null to take it from the file's metadata
     */
    static BertClassificationModel fromSafeTensors(String uid, String path, String prefix, int numHeads,
                                                   String pooling, Configuration conf) {
        return fromFile(uid, path, ClassifierFiles.read(path, conf, null), prefix, numHeads, pooling);
    }

    private static BertClassificationModel fromFile(String uid, String path, SafeTensors file, String prefix,
                                                    int numHeads, String pooling) {
        int heads = numHeads > 0 ? numHeads : metadataHeads(file, path);
        String pool = pooling != null ? pooling
            : ClassifierFiles.metadata(file, path, POOLING, "give the pooling");
        try {
            BertEncoder encoder = BertModelFiles.fromSafeTensors(file, prefix, heads);
            float[][] head = readHead(file, encoder.config().hidden());
            return new BertClassificationModel(uid, encoder, head[0], head[1],
                PoolingNames.parse(pool, BertClassifierParamSet.POOLINGS));
        } catch (IOException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /** The heads recorded in a file's metadata. */
    static int metadataHeads(SafeTensors file, String path) {
        return Integer.parseInt(ClassifierFiles.metadata(file, path, BertModelFiles.META_HEADS,
            "give the encoder's number of attention heads"));
    }

    /**
     * The head in a file, {@code {classifier.weight (K×E), classifier.bias (K)}}.
     *
     * @param hidden the encoder's width E, which the weight's columns must match
     * @throws IOException naming the file and the tensor that is missing or mis-shaped
     */
    static float[][] readHead(SafeTensors file, int hidden) throws IOException {
        int[] ek = ClassifierStateDict.dimensions(file);
        if (ek[0] != hidden) {
            throw new IllegalArgumentException(file.source() + ": tensor '" + ClassifierStateDict.CLASSIFIER_WEIGHT
                + "' is for hidden width " + ek[0] + ", but the encoder's is " + hidden);
        }
        int k = ek[1];
        List<ParameterTensor> layout = List.of(ParameterTensor.of(BertClassifierNetwork.CLASSIFIER_WEIGHT, 0, k, hidden),
            ParameterTensor.of(BertClassifierNetwork.CLASSIFIER_BIAS, k * hidden, k));
        float[] flat = ClassifierStateDict.load(file, layout, k * hidden + k);
        float[] weight = java.util.Arrays.copyOf(flat, k * hidden);
        float[] bias = java.util.Arrays.copyOfRange(flat, k * hidden, flat.length);
        return new float[][] {weight, bias};
    }

    static MLWriter writer(BertClassificationModel model) {
        model.encoder();
        return ClassifierFiles.writer(model, WEIGHTS_FILE, (file, conf) -> exportPyTorch(model, file, conf));
    }

    static MLReader<BertClassificationModel> reader() {
        return ClassifierFiles.reader(BertClassificationModel.class, WEIGHTS_FILE,
            (uid, path, file) -> fromFile(uid, path, file, "", 0, null));
    }
}

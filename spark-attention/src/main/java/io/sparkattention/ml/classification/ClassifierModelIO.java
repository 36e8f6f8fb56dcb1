package io.sparkattention.ml.classification;

import io.sparkattention.io.ClassifierStateDict;
import io.sparkattention.io.SafeTensors;
import io.sparkattention.nn.AttentionClassifierNetwork;
import io.sparkattention.nn.Pooling;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.ml.util.Identifiable$;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.ml.util.MLWriter;

import java.io.IOException;
import java.util.Map;

/**
 * {@link AttentionClassificationModel}'s files. Saved models hold MLlib's params metadata under
 * {@code path/metadata} and the reference module's state_dict under
 * {@code path/data/classifier.safetensors} (F32, PyTorch's names), whose {@code __metadata__}
 * records what PyTorch does not store: heads, causal, residual and pooling. The same file format
 * is what {@code exportPyTorch} writes and {@code fromSafeTensors} reads.
 */
final class ClassifierModelIO {

    /** The state_dict file under a saved model's {@code data} directory. */
    static final String WEIGHTS_FILE = "classifier.safetensors";
    /** {@code __metadata__} keys of the architecture. */
    static final String NUM_HEADS = "num_heads", CAUSAL = "causal", RESIDUAL = "residual", POOLING = "pooling";

    private ClassifierModelIO() {
    }

    /** Writes the state_dict (and the architecture as metadata) to a new file. */
    static void exportPyTorch(AttentionClassificationModel model, String path, Configuration conf) {
        ClassifierArchitecture shape = model.shape();
        AttentionClassifierNetwork network = shape.network();
        Map<String, String> metadata = Map.of(NUM_HEADS, Integer.toString(shape.numHeads),
            CAUSAL, Boolean.toString(shape.causal), RESIDUAL, Boolean.toString(shape.residual),
            POOLING, shape.poolingName(), "format", "AttentionClassifier state_dict");
        ClassifierFiles.write(path, ClassifierStateDict.toTensors(model.sharedParameters(), network.parameters()),
            metadata, conf);
    }

    /** A model from a state_dict file with the given architecture (E and K from the tensors). */
    static AttentionClassificationModel fromSafeTensors(String path, int numHeads, boolean causal, boolean residual,
                                                        String pooling, Configuration conf) {
        return fromFile(Identifiable$.MODULE$.randomUID("attentionClassificationModel"),
            ClassifierFiles.read(path, conf, null), numHeads, causal, residual, pooling);
    }

    private static AttentionClassificationModel fromFile(String uid, SafeTensors file, int numHeads, boolean causal,
                                                         boolean residual, String pooling) {
        Pooling p = PoolingNames.parse(pooling, ClassifierParamSet.POOLINGS);
        try {
            int[] ek = ClassifierStateDict.dimensions(file);
            ClassifierArchitecture shape = new ClassifierArchitecture(ek[0], numHeads, ek[1], causal, residual, p);
            AttentionClassifierNetwork network = shape.network();
            float[] theta = ClassifierStateDict.load(file, network.parameters(), network.parameterCount());
            return new AttentionClassificationModel(uid, shape, theta);
        } catch (IOException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    static MLWriter writer(AttentionClassificationModel model) {
        model.shape();
        return ClassifierFiles.writer(model, WEIGHTS_FILE, (file, conf) -> exportPyTorch(model, file, conf));
    }

    /** Saved models: the architecture from the file's metadata. */
    static MLReader<AttentionClassificationModel> reader() {
        return ClassifierFiles.reader(AttentionClassificationModel.class, WEIGHTS_FILE, (uid, path, file) ->
            fromFile(uid, file, Integer.parseInt(ClassifierFiles.metadata(file, path, NUM_HEADS, null)),
                Boolean.parseBoolean(ClassifierFiles.metadata(file, path, CAUSAL, null)),
                Boolean.parseBoolean(ClassifierFiles.metadata(file, path, RESIDUAL, null)),
                ClassifierFiles.metadata(file, path, POOLING, null)));
    }
}

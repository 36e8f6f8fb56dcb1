package io.sparkattention.ml.classification;

import io.sparkattention.io.ClassifierStateDict;
import io.sparkattention.io.SafeTensors;
import io.sparkattention.ml.HadoopSafeTensors;
import io.sparkattention.ml.StageData;
import io.sparkattention.nn.AttentionClassifierNetwork;
import io.sparkattention.nn.Pooling;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.ml.util.Identifiable$;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.ml.util.MLWriter;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
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
        try {
            HadoopSafeTensors.write(path, ClassifierStateDict.toTensors(model.sharedParameters(), network.parameters()),
                metadata, conf != null ? conf : StageData.hadoopConf());
        } catch (IOException e) {
            throw new UncheckedIOException(path + ": " + e.getMessage(), e);
        }
    }

    /** A model from a state_dict file with the given architecture (E and K from the tensors). */
    static AttentionClassificationModel fromSafeTensors(String path, int numHeads, boolean causal, boolean residual,
                                                        String pooling, Configuration conf) {
        Pooling p = PoolingNames.parse(pooling, ClassifierParamSet.POOLINGS);
        try {
            SafeTensors file = HadoopSafeTensors.read(path, conf != null ? conf : StageData.hadoopConf());
            int[] ek = ClassifierStateDict.dimensions(file);
            ClassifierArchitecture shape = new ClassifierArchitecture(ek[0], numHeads, ek[1], causal, residual, p);
            AttentionClassifierNetwork network = shape.network();
            float[] theta = ClassifierStateDict.load(file, network.parameters(), network.parameterCount());
            return new AttentionClassificationModel(
                Identifiable$.MODULE$.randomUID("attentionClassificationModel"), shape, theta);
        } catch (IOException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    static MLWriter writer(AttentionClassificationModel model) {
        model.shape();
        return StageData.writer(model, (path, conf) -> exportPyTorch(model, dataFile(path), conf));
    }

    static MLReader<AttentionClassificationModel> reader() {
        return StageData.reader(List.of(AttentionClassificationModel.class.getName()), (uid, path, conf) -> {
            AttentionClassificationModel saved = readData(path, conf);
            return new AttentionClassificationModel(uid, saved.shape(), saved.sharedParameters());
        });
    }

    /** The model in {@code path/data}, built from the architecture in the file's metadata. */
    private static AttentionClassificationModel readData(String path, Configuration conf) throws IOException {
        String file = dataFile(path);
        Map<String, String> arch = HadoopSafeTensors.read(file, conf).metadata();
        for (String key : new String[] {NUM_HEADS, CAUSAL, RESIDUAL, POOLING}) {
            if (!arch.containsKey(key)) {
                throw new IllegalArgumentException(file + ": no " + key + " in the file's metadata");
            }
        }
        return fromSafeTensors(file, Integer.parseInt(arch.get(NUM_HEADS)), Boolean.parseBoolean(arch.get(CAUSAL)),
            Boolean.parseBoolean(arch.get(RESIDUAL)), arch.get(POOLING), conf);
    }

    private static String dataFile(String path) {
        return StageData.dataFile(path, WEIGHTS_FILE);
    }
}

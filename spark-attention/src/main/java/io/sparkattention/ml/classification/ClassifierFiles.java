package io.sparkattention.ml.classification;

import io.sparkattention.io.SafeTensors;
import io.sparkattention.io.Tensor;
import io.sparkattention.ml.HadoopSafeTensors;
import io.sparkattention.ml.StageData;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.ml.param.Params;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.ml.util.MLWriter;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * The model files both classifier families share: one safetensors file (F32 tensors under
 * PyTorch's names, the architecture in its {@code __metadata__}) that {@code exportPyTorch}
 * writes, {@code fromSafeTensors} and {@code initialWeightsPath} read, and a saved model keeps
 * under {@code path/data/NAME} beside MLlib's params metadata. Each family says what goes in the
 * file ({@link ClassifierModelIO}, {@link BertModelIO}); the reading, writing and their errors are
 * here, once.
 */
final class ClassifierFiles {

    /** Builds a family's model from its saved uid and its data file (at {@code path}, open as {@code file}). */
    @FunctionalInterface
    interface Loader<M> {
        M load(String uid, String path, SafeTensors file) throws IOException;
    }

    private ClassifierFiles() {
    }

    /**
     * Writes {@code tensors} with {@code metadata} to a new file ({@code conf} null: the session's Hadoop configuration).
     *
     * @throws UncheckedIOException naming the file when it cannot be written
     */
    static void write(String path, Map<String, Tensor> tensors, Map<String, String> metadata, Configuration conf) {
        try {
            HadoopSafeTensors.write(path, tensors, metadata, conf != null ? conf : StageData.hadoopConf());
        } catch (IOException e) {
            throw new UncheckedIOException(path + ": " + e.getMessage(), e);
        }
    }

    /**
     * Opens a file ({@code conf} null: the session's Hadoop configuration).
     *
     * @param param the param that named the file (prefixed to the error), or null
     * @throws IllegalArgumentException naming the file (and the param) when it is missing or not safetensors
     */
    static SafeTensors read(String path, Configuration conf, String param) {
        try {
            return HadoopSafeTensors.read(path, conf != null ? conf : StageData.hadoopConf());
        } catch (IOException e) {
            throw new IllegalArgumentException((param == null ? "" : param + ": ") + e.getMessage(), e);
        }
    }

    /**
     * A value of the file's {@code __metadata__}.
     *
     * @param missing what to do when the key is absent (appended to the error), or null
     * @throws IllegalArgumentException naming the file and the key when it is absent
     */
    static String metadata(SafeTensors file, String path, String key, String missing) {
        String value = file.metadata().get(key);
        if (value == null) {
            throw new IllegalArgumentException(path + ": no " + key + " in the file's metadata"
                + (missing == null ? "" : "; " + missing));
        }
        return value;
    }

    /** A saved model's writer: MLlib's params metadata, then {@code export} writes the file {@code path/data/name}. */
    static MLWriter writer(Params model, String name, BiConsumer<String, Configuration> export) {
        return StageData.writer(model, (path, conf) -> export.accept(StageData.dataFile(path, name), conf));
    }

    /**
     * The reader of models saved by {@link #writer} under {@code modelClass}'s name, loading
     * {@code path/data/name} (a file that cannot be read fails as {@link StageData#reader} says).
     */
    static <M extends Params> MLReader<M> reader(Class<M> modelClass, String name, Loader<M> loader) {
        return StageData.reader(List.of(modelClass.getName()), (uid, path, conf) -> {
            String file = StageData.dataFile(path, name);
            return loader.load(uid, file, HadoopSafeTensors.read(file, conf));
        });
    }
}

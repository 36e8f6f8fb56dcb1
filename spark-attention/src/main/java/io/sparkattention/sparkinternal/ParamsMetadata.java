package io.sparkattention.sparkinternal;

import org.apache.spark.ml.param.Params;
import org.apache.spark.ml.util.DefaultParamsReader;
import org.apache.spark.ml.util.DefaultParamsReader$;
import org.apache.spark.ml.util.DefaultParamsWriter$;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.sql.SparkSession;
import scala.Option;

import java.util.function.Function;

/**
 * MLlib's own persistence format for a stage's params ({@code DefaultParamsWriter} and
 * {@code DefaultParamsReader}, {@code private[ml]} in Spark): {@code path/metadata} holds the
 * stage's class name, uid and params as JSON, so a saved stage reads back in MLlib's
 * {@code Pipeline} and in PySpark. A model that also saves data writes it beside, under
 * {@code path/data}.
 */
public final class ParamsMetadata {

    private ParamsMetadata() {
    }

    /** Writes {@code stage}'s class name, uid and params under {@code path/metadata}. */
    public static void save(Params stage, String path, SparkSession spark) {
        DefaultParamsWriter$.MODULE$.saveMetadata(stage, path, spark);
    }

    /**
     * Reads {@code path/metadata}, builds the stage from the saved uid with {@code create} and sets
     * the saved params on it.
     *
     * @param expectedClass the class name the metadata must name
     * @throws IllegalArgumentException when the metadata names another class
     */
    public static <T extends Params> T load(String path, SparkSession spark, String expectedClass,
                                            Function<String, T> create) {
        DefaultParamsReader.Metadata metadata = DefaultParamsReader$.MODULE$.loadMetadata(path, spark, expectedClass);
        T stage = create.apply(metadata.uid());
        metadata.getAndSetParams(stage, Option.empty());
        return stage;
    }

    /**
     * {@link #load(String, SparkSession, String, Function)} accepting any of several class names:
     * the stage's own and the names it was saved under before.
     *
     * @throws IllegalArgumentException when the metadata names none of them
     */
    public static <T extends Params> T load(String path, SparkSession spark, java.util.List<String> classNames,
                                            Function<String, T> create) {
        DefaultParamsReader.Metadata metadata = DefaultParamsReader$.MODULE$.loadMetadata(path, spark, "");
        if (!classNames.contains(metadata.className())) {
            throw new IllegalArgumentException(path + " holds a " + metadata.className() + ", not a "
                + classNames.get(0));
        }
        T stage = create.apply(metadata.uid());
        metadata.getAndSetParams(stage, Option.empty());
        return stage;
    }

    /** The reader of a stage that saves only its params ({@code DefaultParamsWritable}). */
    public static <T> MLReader<T> reader() {
        return new DefaultParamsReader<>();
    }
}

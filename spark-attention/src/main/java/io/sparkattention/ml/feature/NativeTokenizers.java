package io.sparkattention.ml.feature;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The native Hugging Face tokenizers of one JVM: one per tokenizer file (keyed by the SHA-256 of
 * its bytes) and maximum length, created on first use and shared by every task and thread of the
 * JVM (the Rust tokenizer encodes through a shared reference, so concurrent calls are safe).
 *
 * <p>DJL is configured before its first use so that it loads the native library bundled in its
 * jar and never reaches the network: {@code ai.djl.offline=true} (unless the user set the
 * property or the {@code DJL_OFFLINE} variable) makes DJL skip its telemetry call and keeps it
 * from downloading a GPU build of the library. DJL copies the bundled library once into its cache
 * directory ({@code ~/.djl.ai/tokenizers}, or {@code $ENGINE_CACHE_DIR} / {@code $DJL_CACHE_DIR}
 * when set; the system temporary directory when the home directory is not writable) and loads it
 * from there.
 */
public final class NativeTokenizers {

    /** DJL's switch for its offline mode (system property; the environment's {@code DJL_OFFLINE} wins). */
    static final String OFFLINE_PROPERTY = "ai.djl.offline";

    private static final Map<String, HuggingFaceTokenizer> CACHE = new ConcurrentHashMap<>();

    static {
        if (System.getProperty(OFFLINE_PROPERTY) == null && System.getenv("DJL_OFFLINE") == null) {
            System.setProperty(OFFLINE_PROPERTY, "true");
        }
    }

    private NativeTokenizers() {
    }

    /** The hex SHA-256 of a tokenizer file's bytes: the key under which its tokenizer is cached. */
    public static String contentHash(byte[] json) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(json));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JVM has no SHA-256", e);
        }
    }

    /**
     * The JVM's tokenizer for a file and maximum length, created from {@code json} on first use.
     *
     * @param hash      {@link #contentHash} of the file
     * @param maxLength the longest output, special tokens included
     * @param json      the file's bytes, fetched only when the tokenizer is not cached yet
     * @param source    what the file is, for the error when it is not a tokenizer
     */
    public static HuggingFaceTokenizer get(String hash, int maxLength, Supplier<byte[]> json, String source) {
        return CACHE.computeIfAbsent(hash + '/' + maxLength, k -> create(json.get(), maxLength, source));
    }

    /**
     * A tokenizer that adds the special tokens ([CLS] … [SEP] for BERT), truncates at
     * {@code maxLength} (DJL would otherwise take the file's own limit, silently) and never pads.
     */
    private static HuggingFaceTokenizer create(byte[] json, int maxLength, String source) {
        Map<String, String> options = Map.of(
            "addSpecialTokens", "true",
            "withOverflowingTokens", "false",
            "truncation", "LONGEST_FIRST",
            "padding", "DO_NOT_PAD",
            "maxLength", Integer.toString(maxLength),
            // DJL lowers maxLength to modelMaxLength (512 unless given): the caller's limit holds.
            "modelMaxLength", Integer.toString(maxLength));
        try {
            return HuggingFaceTokenizer.newInstance(new ByteArrayInputStream(json), options);
        } catch (IOException e) {
            throw new UncheckedIOException(source + ": cannot read the tokenizer: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(source + " is not a Hugging Face tokenizer.json: "
                + firstLine(e.getMessage()), e);
        }
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "(no message)";
        }
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }
}

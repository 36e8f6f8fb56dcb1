package io.sparkattention.ml.lm;

import io.sparkattention.ml.feature.NativeTokenizers;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.unsafe.types.UTF8String;

import java.io.Serializable;

/**
 * Generated ids back to text with the model's Hugging Face {@code tokenizer.json} (Hugging Face's
 * Rust tokenizers through DJL: GPT-2's byte-level decoder joins the bytes of the ids and reads them
 * as UTF-8). The file reaches executors by a broadcast; each JVM builds its native tokenizer once
 * per file and shares it between tasks. Special tokens are kept in the text, as Hugging Face's
 * {@code decode} does by default.
 */
final class TextDecoder implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The native tokenizer's truncation limit, which decoding does not use. */
    private static final int UNUSED_MAX_LENGTH = Integer.MAX_VALUE;

    private final Broadcast<byte[]> file;
    private final String hash;

    /**
     * @param file the tokenizer.json's bytes, broadcast
     * @param hash {@link NativeTokenizers#contentHash} of them
     */
    TextDecoder(Broadcast<byte[]> file, String hash) {
        this.file = file;
        this.hash = hash;
    }

    /** The ids' text, as a Catalyst string. */
    UTF8String decode(int[] ids) {
        long[] wide = new long[ids.length];
        for (int i = 0; i < ids.length; i++) {
            wide[i] = ids[i];
        }
        return UTF8String.fromString(NativeTokenizers.get(hash, UNUSED_MAX_LENGTH, file::value,
            "the model's tokenizer.json").decode(wide, false));
    }
}

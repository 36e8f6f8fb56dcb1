package io.sparkattention.io;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Decodes a file's header as UTF-8, refusing malformed bytes instead of replacing them: a header
 * that is not valid UTF-8 is a damaged or hostile file, and a replacement character could make a
 * damaged name match.
 */
final class StrictUtf8 {

    private StrictUtf8() {
    }

    /**
     * @param source what the bytes come from, for the error
     * @param bytes  the encoded header
     * @param what   the header's name in the error ("header", "version 3.0 header")
     * @return the decoded text
     * @throws TensorFormatException naming the source when the bytes are not valid UTF-8
     */
    static String decode(String source, byte[] bytes, String what) throws TensorFormatException {
        try {
            return StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(bytes))
                .toString();
        } catch (CharacterCodingException e) {
            throw new TensorFormatException(source, null, what + " is not valid UTF-8", e);
        }
    }
}

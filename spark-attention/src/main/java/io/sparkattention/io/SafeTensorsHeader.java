package io.sparkattention.io;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Parses and validates a safetensors JSON header against the size of the data section it
 * describes. Every rule of the format is checked here, once, so that the data readers can trust
 * the offsets.
 */
final class SafeTensorsHeader {

    /** The header key that holds the string-to-string metadata instead of a tensor. */
    static final String METADATA_KEY = "__metadata__";

    /** How many tensor names an error message lists before "...". */
    static final int NAMES_IN_ERRORS = 8;

    /**
     * Duplicate keys inside a tensor's entry or the metadata fail the tree read; duplicate tensor
     * names are caught by the top-level loop below, which knows the name to report.
     */
    private static final ObjectMapper MAPPER = new ObjectMapper()
        .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY);

    private final Map<String, TensorEntry> entries;
    private final Map<String, String> metadata;

    private SafeTensorsHeader(Map<String, TensorEntry> entries, Map<String, String> metadata) {
        this.entries = entries;
        this.metadata = metadata;
    }

    /** The entries by name, in name order, unmodifiable. */
    Map<String, TensorEntry> entries() {
        return entries;
    }

    /** The metadata, in header order, unmodifiable; empty when the header has none. */
    Map<String, String> metadata() {
        return metadata;
    }

    /** The entry named {@code name}, or an error naming {@code source} and some of the names it holds. */
    TensorEntry entry(String source, String name) throws TensorFormatException {
        TensorEntry e = entries.get(name);
        if (e == null) {
            throw new TensorFormatException(source, name, "no such tensor; the file holds "
                + someNames(entries.keySet(), entries.size()));
        }
        return e;
    }

    /** The tensor names that start with {@code prefix}, in order. */
    List<String> namesStartingWith(String prefix) {
        List<String> out = new ArrayList<>();
        for (String n : entries.keySet()) {
            if (n.startsWith(prefix)) {
                out.add(n);
            }
        }
        return out;
    }

    /**
     * Parses {@code header} and checks that its tensors tile a data section of {@code dataLength}
     * bytes exactly.
     */
    static SafeTensorsHeader parse(String source, byte[] header, long dataLength) throws TensorFormatException {
        String text = decodeUtf8(source, header);
        Map<String, TensorEntry> entries = new TreeMap<>();
        Map<String, String> metadata = Collections.emptyMap();
        try (JsonParser parser = MAPPER.createParser(text)) {
            JsonToken first = parser.nextToken();
            if (first != JsonToken.START_OBJECT) {
                String start = first == null ? "nothing"
                    : first.asString() == null ? first.name() : "'" + first.asString() + "'";
                throw new TensorFormatException(source, null, "header is not a JSON object (it starts with " + start
                    + ")");
            }
            boolean sawMetadata = false;
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String name = parser.currentName();
                parser.nextToken();
                JsonNode value = readValue(source, name, parser);
                if (METADATA_KEY.equals(name)) {
                    if (sawMetadata) {
                        throw new TensorFormatException(source, null, "header has two '" + METADATA_KEY + "' entries");
                    }
                    sawMetadata = true;
                    metadata = parseMetadata(source, value);
                } else if (entries.containsKey(name)) {
                    throw new TensorFormatException(source, name, "duplicate tensor name in the header");
                } else {
                    entries.put(name, parseEntry(source, name, value));
                }
            }
            if (parser.nextToken() != null) {
                throw new TensorFormatException(source, null, "header has text after its JSON object");
            }
        } catch (TensorFormatException e) {
            throw e;
        } catch (JsonProcessingException e) {
            throw new TensorFormatException(source, null, "header is not valid JSON: " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            // A String source does no I/O; anything else Jackson throws is a malformed header.
            throw new TensorFormatException(source, null, "header cannot be parsed: " + e.getMessage(), e);
        }
        checkTiling(source, entries, dataLength);
        return new SafeTensorsHeader(Collections.unmodifiableMap(entries), metadata);
    }

    private static String decodeUtf8(String source, byte[] header) throws TensorFormatException {
        return StrictUtf8.decode(source, header, "header");
    }

    private static JsonNode readValue(String source, String name, JsonParser parser) throws TensorFormatException {
        try {
            return MAPPER.readTree(parser);
        } catch (JsonProcessingException e) {
            throw new TensorFormatException(source, name, "header entry is not valid JSON: " + e.getOriginalMessage(),
                e);
        } catch (IOException e) {
            throw new TensorFormatException(source, name, "header entry cannot be parsed: " + e.getMessage(), e);
        }
    }

    private static Map<String, String> parseMetadata(String source, JsonNode value) throws TensorFormatException {
        if (value.isNull()) {
            return Collections.emptyMap();
        }
        if (!value.isObject()) {
            throw new TensorFormatException(source, null, "'" + METADATA_KEY
                + "' must be a JSON object of strings, found " + value.getNodeType());
        }
        Map<String, String> map = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : value.properties()) {
            if (!e.getValue().isTextual()) {
                throw new TensorFormatException(source, null, "'" + METADATA_KEY + "' value of key '" + e.getKey()
                    + "' must be a string, found " + e.getValue().getNodeType());
            }
            map.put(e.getKey(), e.getValue().textValue());
        }
        return Collections.unmodifiableMap(map);
    }

    private static TensorEntry parseEntry(String source, String name, JsonNode value) throws TensorFormatException {
        if (!value.isObject()) {
            throw new TensorFormatException(source, name, "header entry must be a JSON object, found "
                + value.getNodeType());
        }
        JsonNode dtypeNode = value.get("dtype");
        if (dtypeNode == null || !dtypeNode.isTextual()) {
            throw new TensorFormatException(source, name, "'dtype' must be a string, found " + describe(dtypeNode));
        }
        DType dtype = DType.fromHeaderName(dtypeNode.textValue()).orElseThrow(() -> new TensorFormatException(source,
            name, "unknown dtype '" + dtypeNode.textValue() + "' (known: " + Arrays.toString(DType.values()) + ")"));
        long[] shape = nonNegativeLongs(source, name, "shape", value.get("shape"), -1);
        long[] offsets = nonNegativeLongs(source, name, "data_offsets", value.get("data_offsets"), 2);
        long begin = offsets[0];
        long end = offsets[1];
        if (begin > end) {
            throw new TensorFormatException(source, name, "data_offsets [" + begin + ", " + end
                + "] end before they begin");
        }
        long count = 1;
        long bytes;
        try {
            for (long d : shape) {
                count = Math.multiplyExact(count, d);
            }
            bytes = Math.multiplyExact(count, dtype.width());
        } catch (ArithmeticException e) {
            throw new TensorFormatException(source, name, "shape " + Arrays.toString(shape) + " of " + dtype
                + " holds more bytes than a 64-bit count can express");
        }
        if (end - begin != bytes) {
            throw new TensorFormatException(source, name, "data_offsets [" + begin + ", " + end + "] span "
                + (end - begin) + " bytes, but shape " + Arrays.toString(shape) + " of " + dtype + " (" + dtype.width()
                + " bytes each) needs " + bytes);
        }
        return new TensorEntry(name, dtype, shape, count, begin, end);
    }

    /** Reads a JSON array of non-negative integers; {@code length} −1 accepts any length. */
    private static long[] nonNegativeLongs(String source, String name, String key, JsonNode node, int length)
        throws TensorFormatException {
        if (node == null || !node.isArray()) {
            throw new TensorFormatException(source, name, "'" + key + "' must be a JSON array of integers, found "
                + describe(node));
        }
        if (length >= 0 && node.size() != length) {
            throw new TensorFormatException(source, name, "'" + key + "' must hold " + length + " integers, found "
                + node.size());
        }
        long[] out = new long[node.size()];
        for (int i = 0; i < out.length; i++) {
            JsonNode v = node.get(i);
            if (!v.isIntegralNumber()) {
                throw new TensorFormatException(source, name, "'" + key + "' must hold integers, found " + v
                    + " at index " + i);
            }
            if (!v.canConvertToLong() || v.longValue() < 0) {
                throw new TensorFormatException(source, name, "'" + key
                    + "' must hold non-negative 64-bit integers, found " + v + " at index " + i);
            }
            out[i] = v.longValue();
        }
        return out;
    }

    private static String describe(JsonNode node) {
        return node == null ? "nothing" : node.getNodeType().toString();
    }

    /**
     * The tensors, sorted by offset, must cover {@code [0, dataLength)} without gap or overlap: no
     * byte of the file is unaccounted for, and no tensor reads past the end.
     */
    private static void checkTiling(String source, Map<String, TensorEntry> entries, long dataLength)
        throws TensorFormatException {
        List<TensorEntry> byOffset = new ArrayList<>(entries.values());
        byOffset.sort(Comparator.comparingLong(TensorEntry::begin).thenComparingLong(TensorEntry::end));
        long expected = 0;
        TensorEntry previous = null;
        for (TensorEntry e : byOffset) {
            if (e.begin() > expected) {
                throw new TensorFormatException(source, e.name(), "gap in the data section: bytes [" + expected + ", "
                    + e.begin() + ") belong to no tensor ("
                    + (previous == null ? "before the first tensor" : "after tensor '" + previous.name() + "'") + ")");
            }
            if (e.begin() < expected) {
                throw new TensorFormatException(source, e.name(), "data_offsets [" + e.begin() + ", " + e.end()
                    + "] overlap tensor '" + previous.name() + "' at [" + previous.begin() + ", " + previous.end()
                    + "]");
            }
            if (e.end() > dataLength) {
                throw new TensorFormatException(source, e.name(), "data_offsets [" + e.begin() + ", " + e.end()
                    + "] reach past the data section's " + dataLength + " bytes (file truncated?)");
            }
            expected = e.end();
            previous = e;
        }
        if (expected != dataLength) {
            throw new TensorFormatException(source, null, "the data section has " + dataLength
                + " bytes but the tensors cover only " + expected + " (" + (dataLength - expected)
                + " trailing bytes belong to no tensor)");
        }
    }

    /** Up to {@link #NAMES_IN_ERRORS} of {@code names}, for error messages. */
    static String someNames(Iterable<String> names, int total) {
        StringBuilder sb = new StringBuilder();
        int shown = 0;
        for (String n : names) {
            if (shown == NAMES_IN_ERRORS) {
                sb.append(", ... (").append(total).append(" in all)");
                break;
            }
            sb.append(shown == 0 ? "" : ", ").append('\'').append(n).append('\'');
            shown++;
        }
        return shown == 0 ? "no tensors" : sb.toString();
    }
}

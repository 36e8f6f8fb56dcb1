package io.sparkattention.io;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Parses the small subset of Python literal syntax that numpy writes in a {@code .npy} header:
 * dicts with string keys, strings, integers, {@code True}/{@code False}/{@code None}, tuples and
 * lists. Values come back as {@link Map}, {@link String}, {@link BigInteger}, {@link Boolean},
 * {@link #NONE} and {@link List} (tuples too). Anything else is an {@link IllegalArgumentException}
 * naming the position.
 */
final class PythonLiteral {

    /** Python's {@code None}. */
    static final Object NONE = new Object() {
        @Override
        public String toString() {
            return "None";
        }
    };

    /** Deepest nesting accepted; numpy's headers nest two levels, hostile ones could recurse. */
    static final int MAX_DEPTH = 16;

    /** Longest integer literal accepted; shapes need at most 20 digits. */
    static final int MAX_INTEGER_DIGITS = 40;

    private final String text;
    private int pos;

    private PythonLiteral(String text) {
        this.text = text;
    }

    /** Parses {@code text}, which must hold one literal and whitespace only. */
    static Object parse(String text) {
        PythonLiteral p = new PythonLiteral(text);
        p.skipSpace();
        Object value = p.value(0);
        p.skipSpace();
        if (p.pos != text.length()) {
            throw p.error("unexpected text after the literal");
        }
        return value;
    }

    /** Python's spelling of a parsed value, for error messages: {@code True}, {@code 'x'}, {@code [1, 2]}. */
    static String repr(Object value) {
        if (value instanceof Boolean) {
            return (Boolean) value ? "True" : "False";
        }
        if (value instanceof String) {
            return "'" + value + "'";
        }
        if (value instanceof List) {
            StringBuilder sb = new StringBuilder("[");
            for (Object item : (List<?>) value) {
                sb.append(sb.length() == 1 ? "" : ", ").append(repr(item));
            }
            return sb.append(']').toString();
        }
        if (value instanceof Map) {
            StringBuilder sb = new StringBuilder("{");
            for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
                sb.append(sb.length() == 1 ? "" : ", ")
                    .append(repr(e.getKey())).append(": ").append(repr(e.getValue()));
            }
            return sb.append('}').toString();
        }
        return String.valueOf(value);
    }

    private Object value(int depth) {
        if (depth > MAX_DEPTH) {
            throw error("literal nested deeper than " + MAX_DEPTH + " levels");
        }
        if (pos >= text.length()) {
            throw error("unexpected end of the literal");
        }
        char c = text.charAt(pos);
        switch (c) {
            case '{':
                return dict(depth);
            case '(':
                return sequence(depth, ')');
            case '[':
                return sequence(depth, ']');
            case '\'':
            case '"':
                return string(c);
            default:
                if (c == '-' || c == '+' || Character.isDigit(c)) {
                    return integer();
                }
                if (keyword("True")) {
                    return Boolean.TRUE;
                }
                if (keyword("False")) {
                    return Boolean.FALSE;
                }
                if (keyword("None")) {
                    return NONE;
                }
                throw error("unexpected character '" + c + "'");
        }
    }

    private Map<String, Object> dict(int depth) {
        pos++;
        Map<String, Object> map = new LinkedHashMap<>();
        skipSpace();
        while (!consume('}')) {
            Object key = value(depth + 1);
            if (!(key instanceof String)) {
                throw error("dict key " + key + " is not a string");
            }
            skipSpace();
            expect(':');
            skipSpace();
            Object v = value(depth + 1);
            if (map.put((String) key, v) != null) {
                throw error("duplicate key '" + key + "'");
            }
            skipSpace();
            if (!consume(',')) {
                expect('}');
                break;
            }
            skipSpace();
        }
        return Collections.unmodifiableMap(map);
    }

    private List<Object> sequence(int depth, char close) {
        pos++;
        List<Object> items = new ArrayList<>();
        skipSpace();
        while (!consume(close)) {
            items.add(value(depth + 1));
            skipSpace();
            if (!consume(',')) {
                expect(close);
                break;
            }
            skipSpace();
        }
        return Collections.unmodifiableList(items);
    }

    private String string(char quote) {
        pos++;
        StringBuilder sb = new StringBuilder();
        while (pos < text.length()) {
            char c = text.charAt(pos++);
            if (c == quote) {
                return sb.toString();
            }
            if (c == '\\') {
                if (pos >= text.length()) {
                    break;
                }
                c = text.charAt(pos++);
            }
            sb.append(c);
        }
        throw error("unterminated string");
    }

    private BigInteger integer() {
        int start = pos;
        if (text.charAt(pos) == '-' || text.charAt(pos) == '+') {
            pos++;
        }
        int digitsStart = pos;
        while (pos < text.length() && text.charAt(pos) >= '0' && text.charAt(pos) <= '9') {
            pos++;
        }
        if (pos == digitsStart) {
            throw error("sign without digits");
        }
        if (pos - digitsStart > MAX_INTEGER_DIGITS) {
            throw error("integer longer than " + MAX_INTEGER_DIGITS + " digits");
        }
        BigInteger value = new BigInteger(text.substring(start, pos));
        // Python 2's numpy wrote shapes as longs: (3L, 4L).
        if (pos < text.length() && (text.charAt(pos) == 'L' || text.charAt(pos) == 'l')) {
            pos++;
        }
        return value;
    }

    private boolean keyword(String word) {
        if (text.startsWith(word, pos)) {
            int end = pos + word.length();
            if (end == text.length() || !Character.isLetterOrDigit(text.charAt(end)) && text.charAt(end) != '_') {
                pos = end;
                return true;
            }
        }
        return false;
    }

    private void skipSpace() {
        while (pos < text.length() && (text.charAt(pos) == ' ' || text.charAt(pos) == '\t'
            || text.charAt(pos) == '\n' || text.charAt(pos) == '\r')) {
            pos++;
        }
    }

    private boolean consume(char c) {
        if (pos < text.length() && text.charAt(pos) == c) {
            pos++;
            return true;
        }
        return false;
    }

    private void expect(char c) {
        if (!consume(c)) {
            throw error(pos < text.length() ? "expected '" + c + "' but found '" + text.charAt(pos) + "'"
                : "expected '" + c + "' but the literal ended");
        }
    }

    private IllegalArgumentException error(String problem) {
        return new IllegalArgumentException(problem + " at character " + pos);
    }
}

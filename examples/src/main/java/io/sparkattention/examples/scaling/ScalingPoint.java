package io.sparkattention.examples.scaling;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One measured (implementation, n) point, as the JSON line {@link ScalingProbe} prints: status
 * {@code ok} with times and memory, or {@code skipped} / {@code out_of_memory} / {@code failed}
 * with a reason.
 */
public final class ScalingPoint {

    /** Status of a point that ran. */
    public static final String OK = "ok";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ObjectNode json;

    private ScalingPoint(ObjectNode json) {
        this.json = json;
    }

    /**
     * Parses a probe's JSON line.
     *
     * @param line one JSON object
     * @return the point
     * @throws IllegalArgumentException if the line is not a JSON object with impl and seq_len
     */
    public static ScalingPoint parse(String line) {
        try {
            JsonNode node = JSON.readTree(line);
            if (!(node instanceof ObjectNode) || !node.has("impl") || !node.has("seq_len")) {
                throw new IllegalArgumentException("not a scaling point: " + line);
            }
            return new ScalingPoint((ObjectNode) node);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not a scaling point: " + line, e);
        }
    }

    /**
     * A point that did not produce a measurement (its JVM failed).
     *
     * @param impl   the implementation
     * @param n      the sequence length
     * @param d      the head dimension
     * @param reason what went wrong, one line
     * @return the point, status {@code failed}
     */
    public static ScalingPoint failed(Implementation impl, int n, int d, String reason) {
        ObjectNode node = JSON.createObjectNode();
        node.put("impl", impl.id()).put("seq_len", n).put("head_dim", d).put("status", "failed").put("reason", reason);
        return new ScalingPoint(node);
    }

    /**
     * The implementation measured.
     *
     * @return tiled or naive
     */
    public Implementation impl() {
        return Implementation.of(json.get("impl").asText());
    }

    /**
     * The sequence length (L = S).
     *
     * @return n
     */
    public int seqLen() {
        return json.get("seq_len").asInt();
    }

    /**
     * Whether the point ran.
     *
     * @return true for status {@code ok}
     */
    public boolean ok() {
        return OK.equals(status());
    }

    /**
     * The status.
     *
     * @return ok, skipped, out_of_memory or failed
     */
    public String status() {
        return json.path("status").asText("failed");
    }

    /**
     * Median wall time of one forward pass.
     *
     * @return milliseconds, NaN unless {@link #ok()}
     */
    public double medianMs() {
        return json.path("median_ms").asDouble(Double.NaN);
    }

    /**
     * Peak heap of one forward pass (inputs, output and scratch).
     *
     * @return MiB, NaN unless {@link #ok()}
     */
    public double peakHeapMb() {
        return json.path("peak_heap_mb").asDouble(Double.NaN);
    }

    /**
     * The child JVM's maximum heap.
     *
     * @return MiB, or NaN when unknown
     */
    public double heapMaxMb() {
        return json.path("heap_max_mb").asDouble(Double.NaN);
    }

    /**
     * The BLAS the child used.
     *
     * @return e.g. JNIBLAS, or null when unknown
     */
    public String blas() {
        return json.hasNonNull("blas") ? json.get("blas").asText() : null;
    }

    /**
     * Why the point has no measurement.
     *
     * @return the reason, or null for a point that ran
     */
    public String reason() {
        return json.hasNonNull("reason") ? json.get("reason").asText() : null;
    }

    /**
     * The JSON line.
     *
     * @return one line of JSON
     */
    public String toJson() {
        try {
            return JSON.writeValueAsString(json);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}

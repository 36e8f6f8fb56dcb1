package io.sparkattention.io;

import java.util.List;
import java.util.Map;

/**
 * One node of an ONNX graph: its operator, name, inputs and outputs (value names, "" for an
 * omitted optional input) and the attributes this library reads (numbers, number lists and
 * tensors; others are kept by name with no value).
 *
 * @param opType     the operator, e.g. {@code MatMul}
 * @param name       the node's name, e.g. {@code /encoder/layer.0/attention/self/query/MatMul}, or ""
 * @param inputs     input value names, in order
 * @param outputs    output value names, in order
 * @param attributes by attribute name
 */
public record OnnxNode(String opType, String name, List<String> inputs, List<String> outputs,
                       Map<String, Attribute> attributes) {

    /**
     * One attribute; the fields its type does not use are 0, null or empty.
     *
     * @param name   its name, e.g. {@code epsilon}
     * @param f      a FLOAT attribute's value
     * @param i      an INT attribute's value
     * @param t      a TENSOR attribute's value (a Constant node's {@code value}), or null
     * @param floats a FLOATS attribute's values
     * @param ints   an INTS attribute's values
     */
    public record Attribute(String name, float f, long i, OnnxTensor t, float[] floats, long[] ints) {
    }

    /** The attribute of that name, or null. */
    public Attribute attribute(String attributeName) {
        return attributes.get(attributeName);
    }
}

package io.sparkattention.io;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.WireFormat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The parts of an ONNX model ({@code onnx.proto}'s {@code ModelProto}) that a weights loader
 * needs: the main graph's initializers and nodes. Decoded with protobuf-java's wire reader
 * ({@link CodedInputStream}) field by field; every other field is skipped.
 *
 * <p>Fields read (number: name):
 * <pre>
 *   ModelProto      1: ir_version, 7: graph
 *   GraphProto      1: node, 5: initializer
 *   NodeProto       1: input, 2: output, 3: name, 4: op_type, 5: attribute
 *   AttributeProto  1: name, 2: f, 3: i, 5: t, 7: floats, 8: ints
 *   TensorProto     1: dims, 2: data_type, 4: float_data, 5: int32_data, 7: int64_data, 8: name,
 *                   9: raw_data, 10: double_data, 13: external_data, 14: data_location
 * </pre>
 * The file is read whole into memory (an ONNX file with its weights inside is below 2 GB);
 * {@code raw_data} stays a view of those bytes until a tensor is read. A file that is not
 * protobuf, ends early, or holds no graph is a {@link TensorFormatException} naming it.
 */
public final class OnnxModel {

    private final String source;
    private final long irVersion;
    private final Map<String, OnnxTensor> initializers;
    private final List<OnnxNode> nodes;
    private final Map<String, OnnxNode> producers;

    private OnnxModel(String source, long irVersion, Map<String, OnnxTensor> initializers, List<OnnxNode> nodes) {
        this.source = source;
        this.irVersion = irVersion;
        this.initializers = Collections.unmodifiableMap(initializers);
        this.nodes = Collections.unmodifiableList(nodes);
        Map<String, OnnxNode> byOutput = new HashMap<>();
        for (OnnxNode n : nodes) {
            for (String out : n.outputs()) {
                byOutput.put(out, n);
            }
        }
        this.producers = byOutput;
    }

    /**
     * Reads an ONNX file.
     *
     * @throws TensorFormatException naming the file when it is not a complete ONNX model
     * @throws IOException           when it cannot be read
     */
    public static OnnxModel read(Path file) throws IOException {
        Objects.requireNonNull(file, "file");
        return parse(Files.readAllBytes(file), file.toString());
    }

    /**
     * Reads an ONNX model from a stream (read to its end, not closed).
     *
     * @param sourceName how error messages name the content
     */
    public static OnnxModel read(InputStream in, String sourceName) throws IOException {
        Objects.requireNonNull(in, "in");
        return parse(in.readAllBytes(), sourceName);
    }

    /**
     * Decodes a model held in memory; the array is kept (tensors are views of it) and must not
     * change afterwards.
     */
    public static OnnxModel parse(byte[] bytes, String sourceName) throws TensorFormatException {
        Objects.requireNonNull(bytes, "bytes");
        Objects.requireNonNull(sourceName, "sourceName");
        try {
            return new Decoder(bytes, sourceName).model();
        } catch (InvalidProtocolBufferException e) {
            throw new TensorFormatException(sourceName, null, "not a valid ONNX model (protobuf decoding failed: "
                + e.getMessage() + ")", e);
        } catch (IOException e) {
            throw new TensorFormatException(sourceName, null, "not a valid ONNX model: " + e.getMessage(), e);
        }
    }

    /** How error messages name the file. */
    public String source() {
        return source;
    }

    public long irVersion() {
        return irVersion;
    }

    /** The graph's initializers by name, in file order. */
    public Map<String, OnnxTensor> initializers() {
        return initializers;
    }

    /** The graph's nodes, in file (topological) order. */
    public List<OnnxNode> nodes() {
        return nodes;
    }

    /** The node that produces a value, or null (graph inputs and initializers have none). */
    public OnnxNode producer(String value) {
        return producers.get(value);
    }

    /** The nodes that read a value, in graph order. */
    public List<OnnxNode> consumers(String value) {
        List<OnnxNode> out = new ArrayList<>();
        for (OnnxNode n : nodes) {
            if (n.inputs().contains(value)) {
                out.add(n);
            }
        }
        return out;
    }

    /**
     * A constant value: an initializer of that name, or the {@code value} tensor of the Constant
     * node that produces it; null when it is neither.
     */
    public OnnxTensor constant(String value) {
        OnnxTensor t = initializers.get(value);
        if (t != null) {
            return t;
        }
        OnnxNode p = producers.get(value);
        if (p != null && p.opType().equals("Constant")) {
            OnnxNode.Attribute a = p.attribute("value");
            return a == null ? null : a.t();
        }
        return null;
    }

    /** The wire decoding, one method per message type. */
    private static final class Decoder {
        private final CodedInputStream in;
        private final String source;

        Decoder(byte[] bytes, String source) {
            this.in = CodedInputStream.newInstance(bytes);
            this.in.enableAliasing(true);
            this.in.setSizeLimit(Integer.MAX_VALUE);
            this.source = source;
        }

        OnnxModel model() throws IOException {
            long irVersion = -1;
            Map<String, OnnxTensor> initializers = null;
            List<OnnxNode> nodes = null;
            while (true) {
                int tag = in.readTag();
                if (tag == 0) {
                    break;
                }
                int field = WireFormat.getTagFieldNumber(tag);
                if (field == 1 && wire(tag) == WireFormat.WIRETYPE_VARINT) {
                    irVersion = in.readInt64();
                } else if (field == 7 && wire(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
                    initializers = new LinkedHashMap<>();
                    nodes = new ArrayList<>();
                    int old = in.pushLimit(in.readRawVarint32());
                    graph(initializers, nodes);
                    in.popLimit(old);
                } else {
                    in.skipField(tag);
                }
            }
            if (irVersion < 1 || nodes == null || nodes.isEmpty()) {
                throw new TensorFormatException(source, null, "not an ONNX model: "
                    + (irVersion < 1 ? "no ir_version" : "no graph with nodes"));
            }
            return new OnnxModel(source, irVersion, initializers, nodes);
        }

        private void graph(Map<String, OnnxTensor> initializers, List<OnnxNode> nodes) throws IOException {
            while (true) {
                int tag = in.readTag();
                if (tag == 0) {
                    return;
                }
                int field = WireFormat.getTagFieldNumber(tag);
                if (field == 1 && wire(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
                    int old = in.pushLimit(in.readRawVarint32());
                    nodes.add(node());
                    in.popLimit(old);
                } else if (field == 5 && wire(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
                    int old = in.pushLimit(in.readRawVarint32());
                    OnnxTensor t = tensor();
                    in.popLimit(old);
                    if (initializers.put(t.name(), t) != null) {
                        throw new TensorFormatException(source, t.name(), "appears twice among the initializers");
                    }
                } else {
                    in.skipField(tag);
                }
            }
        }

        private OnnxNode node() throws IOException {
            List<String> inputs = new ArrayList<>();
            List<String> outputs = new ArrayList<>();
            String name = "";
            String opType = "";
            Map<String, OnnxNode.Attribute> attributes = new LinkedHashMap<>();
            while (true) {
                int tag = in.readTag();
                if (tag == 0) {
                    break;
                }
                boolean bytes = wire(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED;
                switch (bytes ? WireFormat.getTagFieldNumber(tag) : 0) {
                    case 1:
                        inputs.add(in.readStringRequireUtf8());
                        break;
                    case 2:
                        outputs.add(in.readStringRequireUtf8());
                        break;
                    case 3:
                        name = in.readStringRequireUtf8();
                        break;
                    case 4:
                        opType = in.readStringRequireUtf8();
                        break;
                    case 5: {
                        int old = in.pushLimit(in.readRawVarint32());
                        OnnxNode.Attribute a = attribute();
                        in.popLimit(old);
                        attributes.put(a.name(), a);
                        break;
                    }
                    default:
                        in.skipField(tag);
                }
            }
            return new OnnxNode(opType, name, List.copyOf(inputs), List.copyOf(outputs),
                Collections.unmodifiableMap(attributes));
        }

        private OnnxNode.Attribute attribute() throws IOException {
            String name = "";
            float f = 0f;
            long i = 0;
            OnnxTensor t = null;
            ProtobufRepeated floats = ProtobufRepeated.ofFloats();
            ProtobufRepeated ints = ProtobufRepeated.ofVarints();
            while (true) {
                int tag = in.readTag();
                if (tag == 0) {
                    break;
                }
                int field = WireFormat.getTagFieldNumber(tag);
                int wire = wire(tag);
                if (field == 1 && wire == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
                    name = in.readStringRequireUtf8();
                } else if (field == 2 && wire == WireFormat.WIRETYPE_FIXED32) {
                    f = in.readFloat();
                } else if (field == 3 && wire == WireFormat.WIRETYPE_VARINT) {
                    i = in.readInt64();
                } else if (field == 5 && wire == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
                    int old = in.pushLimit(in.readRawVarint32());
                    t = tensor();
                    in.popLimit(old);
                } else if (field == 7) {
                    floats.read(in, wire);
                } else if (field == 8) {
                    ints.read(in, wire);
                } else {
                    in.skipField(tag);
                }
            }
            return new OnnxNode.Attribute(name, f, i, t, floats.floats(), ints.longs());
        }

        private OnnxTensor tensor() throws IOException {
            ProtobufRepeated dims = ProtobufRepeated.ofVarints();
            int dataType = 0;
            String name = "";
            ByteBuffer raw = null;
            ProtobufRepeated floatData = ProtobufRepeated.ofFloats();
            ProtobufRepeated int64Data = ProtobufRepeated.ofVarints();
            ProtobufRepeated int32Data = ProtobufRepeated.ofVarints();
            ProtobufRepeated doubleData = ProtobufRepeated.ofDoubles();
            boolean external = false;
            while (true) {
                int tag = in.readTag();
                if (tag == 0) {
                    break;
                }
                int field = WireFormat.getTagFieldNumber(tag);
                int wire = wire(tag);
                switch (field) {
                    case 1:
                        dims.read(in, wire);
                        break;
                    case 2:
                        dataType = in.readInt32();
                        break;
                    case 4:
                        floatData.read(in, wire);
                        break;
                    case 5:
                        int32Data.read(in, wire);
                        break;
                    case 7:
                        int64Data.read(in, wire);
                        break;
                    case 8:
                        name = in.readStringRequireUtf8();
                        break;
                    case 9:
                        raw = in.readByteBuffer();
                        break;
                    case 10:
                        doubleData.read(in, wire);
                        break;
                    case 13:
                        external = true;
                        in.skipField(tag);
                        break;
                    case 14:
                        external |= in.readEnum() == 1;
                        break;
                    default:
                        in.skipField(tag);
                }
            }
            return new OnnxTensor(source, name, dataType, dims.longs(), raw, floatData.floats(), int64Data.longs(),
                int32Data.ints(), doubleData.doubles(), external);
        }

        private static int wire(int tag) {
            return WireFormat.getTagWireType(tag);
        }
    }
}

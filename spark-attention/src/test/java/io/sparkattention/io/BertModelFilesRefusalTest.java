package io.sparkattention.io;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Files that are not the BERT they claim to be: each refused with a message naming the file and tensor. */
class BertModelFilesRefusalTest {

    @TempDir
    Path dir;

    @Test
    void aTruncatedOnnxFileIsRefusedNamingIt() throws IOException {
        byte[] whole = Files.readAllBytes(fixture("random_bert_a.onnx"));
        Path cut = dir.resolve("cut.onnx");
        Files.write(cut, Arrays.copyOf(whole, whole.length / 2));
        TensorFormatException e = assertThrows(TensorFormatException.class, () -> BertModelFiles.fromOnnx(cut, 0));
        assertEquals(cut.toString(), e.source());
        assertTrue(e.getMessage().contains("not a valid ONNX model"), e.getMessage());
    }

    @Test
    void aForeignProtobufIsNotAnOnnxModel() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        out.writeString(1, "a message of another schema");
        out.writeInt64(2, 42);
        out.writeBytes(3, ByteString.copyFromUtf8("payload"));
        out.flush();
        Path foreign = dir.resolve("foreign.onnx");
        Files.write(foreign, bytes.toByteArray());
        TensorFormatException e = assertThrows(TensorFormatException.class,
            () -> BertModelFiles.fromOnnx(foreign, 0));
        assertEquals(foreign.toString(), e.source());
        assertTrue(e.getMessage().contains("not an ONNX model"), e.getMessage());
    }

    @Test
    void aSafeTensorsFileGivenAsOnnxIsRefused() {
        Path st = fixture("random_bert_a.safetensors");
        TensorFormatException e = assertThrows(TensorFormatException.class, () -> BertModelFiles.fromOnnx(st, 0));
        assertEquals(st.toString(), e.source());
    }

    @Test
    void externalDataIsRefusedNamingTheTensor() throws IOException {
        Path model = dir.resolve("external.onnx");
        Files.write(model, externalDataModel());
        TensorFormatException e = assertThrows(TensorFormatException.class, () -> BertModelFiles.fromOnnx(model, 0));
        assertEquals("embeddings.word_embeddings.weight", e.tensor());
        assertTrue(e.getMessage().contains("external data") && e.getMessage().contains("not supported"),
            e.getMessage());
    }

    @Test
    void headsThatDoNotDivideTheHiddenWidthAreRefused() {
        IllegalArgumentException st = assertThrows(IllegalArgumentException.class,
            () -> BertModelFiles.fromSafeTensors(fixture("random_bert_a.safetensors"), "", 3));
        assertTrue(st.getMessage().contains("numHeads (3) must divide the hidden width (32) of "), st.getMessage());
        IllegalArgumentException onnx = assertThrows(IllegalArgumentException.class,
            () -> BertModelFiles.fromOnnx(fixture("random_bert_a.onnx"), 3));
        assertTrue(onnx.getMessage().contains("3 heads given") && onnx.getMessage().contains("2 heads"),
            onnx.getMessage());
    }

    @Test
    void aSafeTensorsTensorOfTheWrongShapeIsNamed() throws IOException {
        SafeTensors good = SafeTensors.read(fixture("random_bert_a.safetensors"));
        Map<String, Tensor> tensors = new LinkedHashMap<>();
        for (String name : good.names()) {
            long[] shape = good.shape(name);
            float[] values = good.floats(name);
            if (name.equals("encoder.layer.0.intermediate.dense.bias")) {
                values = Arrays.copyOf(values, values.length - 1);
                shape = new long[] {values.length};
            }
            tensors.put(name, Tensor.f32(values, shape));
        }
        Path bad = dir.resolve("bad.safetensors");
        SafeTensorsWriter.write(bad, tensors, good.metadata());
        TensorFormatException e = assertThrows(TensorFormatException.class,
            () -> BertModelFiles.fromSafeTensors(bad, "", 2));
        assertEquals(bad.toString(), e.source());
        assertEquals("encoder.layer.0.intermediate.dense.bias", e.tensor());
        assertTrue(e.getMessage().contains("has shape 127, expected 128"), e.getMessage());
    }

    @Test
    void aWrongPrefixSaysWhatIsMissing() {
        TensorFormatException e = assertThrows(TensorFormatException.class,
            () -> BertModelFiles.fromSafeTensors(fixture("random_bert_b.safetensors"), "roberta.", 4));
        assertEquals("roberta.embeddings.word_embeddings.weight", e.tensor());
    }

    /** An ONNX model whose word embedding lives in a separate file (data_location EXTERNAL). */
    private static byte[] externalDataModel() throws IOException {
        ByteArrayOutputStream tensor = new ByteArrayOutputStream();
        CodedOutputStream t = CodedOutputStream.newInstance(tensor);
        t.writeInt64(1, 100);
        t.writeInt64(1, 32);
        t.writeInt32(2, 1);
        t.writeString(8, "embeddings.word_embeddings.weight");
        ByteArrayOutputStream entry = new ByteArrayOutputStream();
        CodedOutputStream en = CodedOutputStream.newInstance(entry);
        en.writeString(1, "location");
        en.writeString(2, "weights.bin");
        en.flush();
        t.writeBytes(13, ByteString.copyFrom(entry.toByteArray()));
        t.writeEnum(14, 1);
        t.flush();
        ByteArrayOutputStream node = new ByteArrayOutputStream();
        CodedOutputStream n = CodedOutputStream.newInstance(node);
        n.writeString(1, "input_ids");
        n.writeString(2, "out");
        n.writeString(3, "/embeddings/word_embeddings/Gather");
        n.writeString(4, "Gather");
        n.flush();
        ByteArrayOutputStream graph = new ByteArrayOutputStream();
        CodedOutputStream g = CodedOutputStream.newInstance(graph);
        g.writeBytes(1, ByteString.copyFrom(node.toByteArray()));
        g.writeBytes(5, ByteString.copyFrom(tensor.toByteArray()));
        g.flush();
        ByteArrayOutputStream model = new ByteArrayOutputStream();
        CodedOutputStream m = CodedOutputStream.newInstance(model);
        m.writeInt64(1, 8);
        m.writeBytes(7, ByteString.copyFrom(graph.toByteArray()));
        m.flush();
        return model.toByteArray();
    }

    static Path fixture(String file) {
        try {
            return Paths.get(BertModelFilesRefusalTest.class.getResource("/fixtures/encoder/" + file).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}

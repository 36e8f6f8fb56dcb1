package io.sparkattention.ml.classification;

import io.sparkattention.exec.RowFunction;
import io.sparkattention.nn.ClassifierEvaluator;
import io.sparkattention.rows.MatrixType;
import io.sparkattention.rows.SequenceDecoder;
import io.sparkattention.rows.RowDataException;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.ml.linalg.VectorUDT;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.catalyst.util.ArrayData;

/**
 * A model's logits for one row: inputs are the L×E features (nested or flat: {@link SequenceDecoder}) and, when
 * the model has a key length column, the row's valid token count; the output is the K logits as
 * an MLlib dense vector (Catalyst form). Null features give null. The parameters come from a
 * broadcast, bound to the network once per task.
 */
final class ClassifierRowFunction implements RowFunction {

    private static final long serialVersionUID = 1L;
    private static final VectorUDT VECTOR = new VectorUDT();

    private final ClassifierArchitecture shape;
    private final Broadcast<float[]> parameters;
    private final SequenceDecoder type;
    private final String featuresCol;
    private final String keyLengthCol;
    /** The network bound to the parameters, built on first use in each task's copy. */
    private transient ClassifierEvaluator bound;
    private transient float[] logits;

    ClassifierRowFunction(ClassifierArchitecture shape, Broadcast<float[]> parameters, SequenceDecoder type,
                          String featuresCol, String keyLengthCol) {
        this.shape = shape;
        this.parameters = parameters;
        this.type = type;
        this.featuresCol = featuresCol;
        this.keyLengthCol = keyLengthCol;
    }

    @Override
    public Object apply(Object[] inputs) {
        if (inputs[0] == null) {
            return null;
        }
        MatrixType.Matrix m = type.decode((ArrayData) inputs[0], featuresCol, true, "");
        shape.checkTokens(featuresCol, m.rows, m.cols);
        int length = m.rows;
        if (inputs.length > 1 && inputs[1] != null) {
            int keyLength = (Integer) inputs[1];
            if (keyLength < 1 || keyLength > m.rows) {
                throw new RowDataException("column " + keyLengthCol + " is " + keyLength + ", outside [1, " + m.rows
                    + "] (the row's tokens in column " + featuresCol + ")");
            }
            length = keyLength;
        }
        if (bound == null) {
            bound = shape.network().bind(parameters.value());
            logits = new float[shape.numClasses];
        }
        bound.logits(m.values, length, logits);
        double[] raw = new double[logits.length];
        for (int i = 0; i < raw.length; i++) {
            raw[i] = logits[i];
        }
        return VECTOR.serialize(Vectors.dense(raw));
    }
}

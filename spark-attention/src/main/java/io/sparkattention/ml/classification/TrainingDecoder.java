package io.sparkattention.ml.classification;

import io.sparkattention.rows.MatrixType;
import io.sparkattention.rows.SequenceDecoder;
import io.sparkattention.rows.RowDataException;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.catalyst.InternalRow;

import java.util.Arrays;
import java.util.Iterator;

/**
 * Decodes the training columns of one partition's internal rows into {@link TrainingRow}s:
 * ordinal 0 the L×E features (nested or flat: {@link SequenceDecoder}), 1 the label (double), 2 the weight
 * (double), 3 the key length (int, null when the stage has no key length column). A row whose
 * data is unusable — a label that is not a class index of the {@link ClassCount} among them —
 * becomes an invalid row carrying the problem, naming the column.
 */
final class TrainingDecoder implements FlatMapFunction<Iterator<InternalRow>, TrainingRow> {

    private static final long serialVersionUID = 1L;

    private final SequenceDecoder featuresType;
    private final String featuresCol;
    private final String labelCol;
    private final String weightCol;
    private final String keyLengthCol;
    private final ClassCount classes;

    TrainingDecoder(SequenceDecoder featuresType, String featuresCol, String labelCol, String weightCol,
                    String keyLengthCol, ClassCount classes) {
        this.featuresType = featuresType;
        this.featuresCol = featuresCol;
        this.labelCol = labelCol;
        this.weightCol = weightCol;
        this.keyLengthCol = keyLengthCol;
        this.classes = classes;
    }

    @Override
    public Iterator<TrainingRow> call(Iterator<InternalRow> rows) {
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return rows.hasNext();
            }

            @Override
            public TrainingRow next() {
                return decode(rows.next());
            }
        };
    }

    TrainingRow decode(InternalRow row) {
        if (row.isNullAt(1)) {
            return TrainingRow.invalid("column " + labelCol + " is null");
        }
        double label = row.getDouble(1);
        String labelProblem = classes.problem(label, labelCol);
        if (labelProblem != null) {
            return TrainingRow.invalid(labelProblem);
        }
        double weight = row.isNullAt(2) ? Double.NaN : row.getDouble(2);
        if (!(weight >= 0) || Double.isInfinite(weight)) {
            return TrainingRow.invalid("column " + weightCol + " is " + (row.isNullAt(2) ? "null" : weight)
                + ", expected a finite weight >= 0");
        }
        if (row.isNullAt(0)) {
            return TrainingRow.invalid("column " + featuresCol + " is null");
        }
        MatrixType.Matrix m;
        try {
            m = featuresType.decode(row.getArray(0), featuresCol, true, "");
        } catch (RowDataException e) {
            return TrainingRow.invalid(e.getMessage());
        }
        int length = m.rows;
        if (!keyLengthCol.isEmpty() && !row.isNullAt(3)) {
            int keyLength = row.getInt(3);
            if (keyLength < 1 || keyLength > m.rows) {
                return TrainingRow.invalid("column " + keyLengthCol + " is " + keyLength + ", outside [1, " + m.rows
                    + "] (the row's " + m.rows + " tokens in column " + featuresCol + ")");
            }
            length = keyLength;
        }
        if (length == 0 || m.cols == 0) {
            return TrainingRow.invalid("column " + featuresCol + " is empty (" + m.rows + "×" + m.cols
                + "); a row needs at least one token");
        }
        float[] x = length == m.rows ? m.values : Arrays.copyOf(m.values, length * m.cols);
        return TrainingRow.valid(x, length, (int) label, weight);
    }
}

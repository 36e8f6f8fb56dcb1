package io.sparkattention.ml.lm;

import io.sparkattention.gpt.GptDecoder;
import io.sparkattention.ml.Shipped;
import io.sparkattention.ml.feature.BatchedRows;
import io.sparkattention.ml.feature.EncoderBatches;
import io.sparkattention.rows.TokenIds;
import org.apache.spark.api.java.function.Function2;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.types.DataType;

import java.util.Iterator;

/**
 * The language model's scoring on one partition ({@link BatchedRows}): its rows gathered into
 * {@link EncoderBatches}, each group's token log-probabilities computed by one batched call of
 * {@link GptDecoder#tokenLogProbs(int[][], int)} (each row's bits what it gets alone), every row
 * returned in its input order with {@code log_prob}, {@code tokens}, {@code perplexity} and, when
 * asked, the per-token log-probabilities appended; a row kept without ids gets nulls.
 */
final class ScorePartition implements Function2<Integer, Iterator<InternalRow>, Iterator<InternalRow>> {

    private static final long serialVersionUID = 1L;

    private final Broadcast<Shipped<GptDecoder>> decoder;
    private final TokenIds ids;
    private final EncoderBatches batches;
    private final int stride;
    private final boolean tokenLogProbs;
    private final int idsIndex;
    private final int rowIdIndex;
    private final DataType rowIdType;

    /**
     * @param stride        the sliding window's stride, resolved against the model
     * @param tokenLogProbs whether the per-token log-probabilities are appended
     * @param idsIndex      the ids column's position in the input rows
     * @param rowIdIndex    the row id column's position, or -1 to name rows by position
     * @param rowIdType     its type (unused without one)
     */
    ScorePartition(Broadcast<Shipped<GptDecoder>> decoder, TokenIds ids, EncoderBatches batches, int stride,
                   boolean tokenLogProbs, int idsIndex, int rowIdIndex, DataType rowIdType) {
        this.decoder = decoder;
        this.ids = ids;
        this.batches = batches;
        this.stride = stride;
        this.tokenLogProbs = tokenLogProbs;
        this.idsIndex = idsIndex;
        this.rowIdIndex = rowIdIndex;
        this.rowIdType = rowIdType;
    }

    @Override
    public Iterator<InternalRow> call(Integer partition, Iterator<InternalRow> input) {
        GptDecoder model = decoder.value().get();
        BatchedRows.Decoder read = row -> ids.read(row.isNullAt(idsIndex) ? null : row.getArray(idsIndex), 0,
            Integer.MAX_VALUE, "");
        BatchedRows.Group score = batch -> {
            double[][] logProbs = model.tokenLogProbs(batch, stride);
            Object[][] out = new Object[batch.length][];
            for (int i = 0; i < batch.length; i++) {
                out[i] = values(logProbs[i], tokenLogProbs);
            }
            return out;
        };
        return new BatchedRows(batches, partition, input, read, score, tokenLogProbs ? 4 : 3, rowIdIndex, rowIdType);
    }

    /**
     * A row's appended values from its token log-probabilities: {@code log_prob} (their sum, in
     * token order), {@code tokens} (their count), {@code perplexity} ({@code exp(-log_prob / tokens)},
     * null without tokens) and, when asked, the log-probabilities themselves.
     */
    static Object[] values(double[] logProbs, boolean withTokenLogProbs) {
        double sum = 0;
        for (double p : logProbs) {
            sum += p;
        }
        Double perplexity = logProbs.length == 0 ? null : Math.exp(-sum / logProbs.length);
        return withTokenLogProbs
            ? new Object[] {sum, logProbs.length, perplexity, UnsafeArrayData.fromPrimitiveArray(logProbs)}
            : new Object[] {sum, logProbs.length, perplexity};
    }
}

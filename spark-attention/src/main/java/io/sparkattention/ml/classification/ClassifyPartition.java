package io.sparkattention.ml.classification;

import io.sparkattention.ml.Shipped;
import io.sparkattention.bert.BertClassifierEvaluator;
import io.sparkattention.bert.BertClassifierNetwork;
import io.sparkattention.exec.RowFunctions;
import io.sparkattention.ml.feature.BatchedRows;
import io.sparkattention.ml.feature.EncoderBatches;
import io.sparkattention.sparkinternal.InternalFrames;
import io.sparkattention.rows.TokenIds;
import org.apache.spark.api.java.function.Function2;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.ml.linalg.VectorUDT;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;

import java.util.Iterator;
import java.util.List;

import static org.apache.spark.sql.functions.col;

/**
 * A {@link BertClassificationModel}'s logits over one partition of a batch DataFrame: the rows'
 * token ids gathered into {@link EncoderBatches} groups ({@link BatchedRows}), each group's
 * encoder states computed by one stacked forward of the head-only network's frozen encoder (the
 * bits each row gets alone), then the head per row, in eval mode. Appends the K logits as an
 * MLlib dense vector (Catalyst form); null ids give null.
 */
final class ClassifyPartition implements Function2<Integer, Iterator<InternalRow>, Iterator<InternalRow>> {

    private static final long serialVersionUID = 1L;
    private static final VectorUDT VECTOR = new VectorUDT();

    private final Broadcast<Shipped<BertClassifierNetwork>> network;
    private final String idsCol;
    private final int idsIndex;
    private final boolean longIds;
    private final EncoderBatches batches;

    /**
     * @param idsIndex the ids column's position in the input rows
     * @param longIds  whether its elements are {@code bigint}
     */
    ClassifyPartition(Broadcast<Shipped<BertClassifierNetwork>> network, String idsCol, int idsIndex,
                      boolean longIds, EncoderBatches batches) {
        this.network = network;
        this.idsCol = idsCol;
        this.idsIndex = idsIndex;
        this.longIds = longIds;
        this.batches = batches;
    }

    /**
     * {@code df} with the K logits of its ids column appended as column {@code raw}: a batch
     * DataFrame's partitions through this class, a streaming one's rows one at a time
     * ({@link BertRowFunction}); a row gets the same bits either way.
     */
    static Dataset<Row> withLogits(Dataset<Row> df, Broadcast<Shipped<BertClassifierNetwork>> network,
                                   String idsCol, boolean longIds, String raw) {
        if (df.isStreaming()) {
            return df.withColumn(raw, RowFunctions.column("bert_classifier",
                new BertRowFunction(network, idsCol, longIds), VECTOR, null, List.of(col(idsCol))));
        }
        ClassifyPartition logits = new ClassifyPartition(network, idsCol, df.schema().fieldIndex(idsCol), longIds,
            EncoderBatches.defaults());
        return InternalFrames.frame(df, InternalFrames.rows(df).toJavaRDD().mapPartitionsWithIndex(logits, true).rdd(),
            df.schema().add(raw, VECTOR, true));
    }

    @Override
    public Iterator<InternalRow> call(Integer partition, Iterator<InternalRow> input) {
        BertClassifierNetwork n = network.value().get();
        TokenIds tokenIds = new TokenIds(idsCol, longIds, true, n.config().vocabSize());
        BatchedRows.Decoder decoder = row -> row.isNullAt(idsIndex) ? null
            : tokenIds.read(row.getArray(idsIndex), 1, n.config().maxPositions());
        BertClassifierEvaluator head = n.bind(n.initialParameters());
        float[] logits = new float[n.numClasses()];
        BatchedRows.Group group = ids -> {
            float[][] states = EncoderBatches.encode(ids, n::frozenStates);
            Object[][] out = new Object[ids.length][];
            for (int i = 0; i < ids.length; i++) {
                head.logits(ids[i], states[i], logits);
                double[] raw = new double[logits.length];
                for (int k = 0; k < raw.length; k++) {
                    raw[k] = logits[k];
                }
                out[i] = new Object[] {VECTOR.serialize(Vectors.dense(raw))};
            }
            return out;
        };
        return new BatchedRows(batches, partition, input, decoder, group, 1, -1, null);
    }
}

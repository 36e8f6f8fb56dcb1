package io.sparkattention.ml.classification;

import io.sparkattention.ml.Shipped;
import io.sparkattention.bert.BertClassifierEvaluator;
import io.sparkattention.bert.BertClassifierNetwork;
import io.sparkattention.exec.RowFunction;
import io.sparkattention.rows.TokenIds;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.ml.linalg.VectorUDT;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.catalyst.util.ArrayData;

/**
 * A {@link BertClassificationModel}'s logits for one row: the input is the row's token ids
 * ({@code array<int>} or {@code array<bigint>}), the output the K logits as an MLlib dense vector
 * (Catalyst form); null ids give null. The model travels as a head-only network (every encoder
 * layer frozen), evaluated without dropout, bound once per task.
 */
final class BertRowFunction implements RowFunction {

    private static final long serialVersionUID = 1L;
    private static final VectorUDT VECTOR = new VectorUDT();

    private final Broadcast<Shipped<BertClassifierNetwork>> network;
    private final String idsCol;
    private final boolean longIds;
    private transient TokenIds tokenIds;
    private transient BertClassifierEvaluator bound;
    private transient float[] logits;

    BertRowFunction(Broadcast<Shipped<BertClassifierNetwork>> network, String idsCol, boolean longIds) {
        this.network = network;
        this.idsCol = idsCol;
        this.longIds = longIds;
    }

    @Override
    public Object apply(Object[] inputs) {
        if (inputs[0] == null) {
            return null;
        }
        BertClassifierNetwork n = network.value().get();
        if (bound == null) {
            tokenIds = new TokenIds(idsCol, longIds, true, n.config().vocabSize());
            bound = n.bind(n.initialParameters());
            logits = new float[n.numClasses()];
        }
        int[] ids = tokenIds.read(inputs[0], 1, n.config().maxPositions());
        bound.logits(ids, null, logits);
        double[] raw = new double[logits.length];
        for (int i = 0; i < raw.length; i++) {
            raw[i] = logits[i];
        }
        return VECTOR.serialize(Vectors.dense(raw));
    }
}

package io.sparkattention.ml.feature;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import io.sparkattention.exec.RowFunction;
import io.sparkattention.rows.RowDataException;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeArrayData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * One text in, its encoding out as a struct {@code (input_ids array<int>, tokens array<string>,
 * truncated boolean)}; {@code tokens} is filled only when asked for. The tokenizer file reaches
 * the executors by broadcast and becomes the JVM's native tokenizer once (see
 * {@link NativeTokenizers}). A null text gives a null struct, or an error naming the column when
 * {@code nullIsError}.
 */
final class TokenizeFunction implements RowFunction {

    private static final long serialVersionUID = 1L;

    static final String IDS = "input_ids";
    static final String TOKENS = "tokens";
    static final String TRUNCATED = "truncated";
    /** The struct the function returns. */
    static final StructType RESULT = new StructType()
        .add(IDS, DataTypes.createArrayType(DataTypes.IntegerType, false), false)
        .add(TOKENS, DataTypes.createArrayType(DataTypes.StringType, false), true)
        .add(TRUNCATED, DataTypes.BooleanType, false);

    private final Broadcast<byte[]> json;
    private final String hash;
    private final String source;
    private final int maxLength;
    private final boolean withTokens;
    private final String column;
    private final boolean nullIsError;

    TokenizeFunction(Broadcast<byte[]> json, String hash, String source, int maxLength, boolean withTokens,
                     String column, boolean nullIsError) {
        this.json = json;
        this.hash = hash;
        this.source = source;
        this.maxLength = maxLength;
        this.withTokens = withTokens;
        this.column = column;
        this.nullIsError = nullIsError;
    }

    @Override
    public Object apply(Object[] inputs) {
        if (inputs[0] == null) {
            if (nullIsError) {
                throw new RowDataException("column " + column + " is null (handleInvalid = error; skip drops such "
                    + "rows, keep gives null outputs)");
            }
            return null;
        }
        HuggingFaceTokenizer tokenizer = NativeTokenizers.get(hash, maxLength, json::value, source);
        Encoding encoding = tokenizer.encode(inputs[0].toString());
        long[] ids = encoding.getIds();
        int[] ints = new int[ids.length];
        for (int i = 0; i < ids.length; i++) {
            ints[i] = Math.toIntExact(ids[i]);
        }
        Object tokens = null;
        if (withTokens) {
            String[] pieces = encoding.getTokens();
            UTF8String[] utf8 = new UTF8String[pieces.length];
            for (int i = 0; i < pieces.length; i++) {
                utf8[i] = UTF8String.fromString(pieces[i]);
            }
            tokens = new GenericArrayData(utf8);
        }
        return new GenericInternalRow(new Object[] {UnsafeArrayData.fromPrimitiveArray(ints), tokens,
            encoding.exceedMaxLength()});
    }
}

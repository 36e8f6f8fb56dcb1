package io.sparkattention.sparkinternal;

import org.apache.spark.ml.util.SchemaUtils$;
import org.apache.spark.sql.types.StructType;

/**
 * MLlib's ML attributes on output columns ({@code ml.util.SchemaUtils}, {@code private[spark]}):
 * the class count MLlib's classification models record in the metadata of their prediction,
 * rawPrediction and probability columns, which MLlib's evaluators and {@code IndexToString} read.
 */
public final class MLSchemas {

    private MLSchemas() {
    }

    /** {@code schema} with {@code column}'s nominal attribute declaring {@code numValues} values. */
    public static StructType withNumValues(StructType schema, String column, int numValues) {
        return SchemaUtils$.MODULE$.updateNumValues(schema, column, numValues);
    }

    /** {@code schema} with {@code column}'s vector attribute group declaring {@code size} elements. */
    public static StructType withVectorSize(StructType schema, String column, int size) {
        return SchemaUtils$.MODULE$.updateAttributeGroupSize(schema, column, size);
    }
}

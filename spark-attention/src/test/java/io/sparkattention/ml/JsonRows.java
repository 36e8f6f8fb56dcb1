package io.sparkattention.ml;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.json.CreateJacksonParser;
import org.apache.spark.sql.catalyst.json.JSONOptions;
import org.apache.spark.sql.catalyst.json.JacksonParser;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import scala.collection.immutable.Map;
import scala.jdk.javaapi.CollectionConverters;

import java.util.ArrayList;
import java.util.List;

/**
 * One JSON line through Spark's own JSON reader ({@link JacksonParser}, FAILFAST, a declared
 * schema): the Catalyst rows a {@code spark.read().schema(s).json(...)} scan hands to a stage.
 */
final class JsonRows {

    private final JacksonParser parser;

    JsonRows(StructType schema) {
        JSONOptions options = new JSONOptions(new Map.Map1<>("mode", "FAILFAST"), "UTC", "_corrupt_record");
        this.parser = new JacksonParser(schema, options, false,
            CollectionConverters.asScala(List.<org.apache.spark.sql.sources.Filter>of()).toList());
    }

    /**
     * The rows Spark reads from {@code line}, or none when Spark's reader refuses it (a malformed
     * record, a value of the wrong type): that refusal is the reader's, before any stage runs.
     */
    List<InternalRow> parse(String line) {
        List<InternalRow> rows = new ArrayList<>();
        try {
            for (InternalRow row : CollectionConverters.asJava(parser.parse(line,
                (factory, text) -> CreateJacksonParser.string(factory, text), UTF8String::fromString))) {
                rows.add(row.copy());
            }
        } catch (Exception e) {
            return List.of();
        }
        return rows;
    }
}

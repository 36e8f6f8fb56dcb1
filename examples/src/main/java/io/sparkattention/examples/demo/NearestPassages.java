package io.sparkattention.examples.demo;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.IntStream;

import static org.apache.spark.sql.functions.col;

/**
 * The passages closest to the query passage by the cosine of their vectors (the demo uses
 * all-MiniLM-L6-v2's sentence embeddings), centred on the corpus mean first: every passage's
 * vector shares a common component (a pooled vector's positional part and the mass on common
 * words) that would otherwise make all cosines near 1.
 */
final class NearestPassages {

    /** The passage the nearest-passages query starts from, when the corpus has it (else the first). */
    static final String QUERY_PASSAGE = "It is a truth universally acknowledged";

    private NearestPassages() {
    }

    /** The query passage of {@code passages} (book, passage, text): the one that starts with {@link #QUERY_PASSAGE}, else the first. */
    static Dataset<Row> query(Dataset<Row> passages) {
        Dataset<Row> ordered = passages.orderBy("book", "passage");
        Dataset<Row> query = ordered.where(col("text").startsWith(QUERY_PASSAGE)).limit(1);
        return query.isEmpty() ? ordered.limit(1) : query;
    }

    /**
     * @param result book, passage, text and pooled (array&lt;float&gt;) columns
     * @param k      how many neighbours
     * @return a line for the query passage, then one per neighbour with its cosine
     */
    static List<String> of(Dataset<Row> result, int k) {
        List<Row> rows = result.select("book", "passage", "text", "pooled").where(col("pooled").isNotNull())
            .orderBy("book", "passage").collectAsList();
        List<float[]> vectors = new ArrayList<>(rows.size());
        double[] mean = null;
        for (Row r : rows) {
            float[] v = floats(r.getList(3));
            vectors.add(v);
            if (mean == null) {
                mean = new double[v.length];
            }
            for (int i = 0; i < v.length; i++) {
                mean[i] += v[i] / (double) rows.size();
            }
        }
        for (float[] v : vectors) {
            for (int i = 0; i < v.length; i++) {
                v[i] -= (float) mean[i];
            }
        }
        int queryIndex = 0;
        for (int i = 0; i < rows.size(); i++) {
            if (rows.get(i).getString(2).startsWith(QUERY_PASSAGE)) {
                queryIndex = i;
                break;
            }
        }
        Row query = rows.get(queryIndex);
        float[] q = vectors.get(queryIndex);
        final int skip = queryIndex;
        List<String> lines = new ArrayList<>();
        lines.add("query: " + label(query));
        IntStream.range(0, rows.size())
            .filter(i -> i != skip)
            .mapToObj(i -> Map.entry(cosine(q, vectors.get(i)), rows.get(i)))
            .sorted(Map.Entry.<Double, Row>comparingByKey(Comparator.reverseOrder()))
            .limit(k)
            .forEach(e -> lines.add(String.format(Locale.ROOT, "%.3f  %s", e.getKey(), label(e.getValue()))));
        return lines;
    }

    private static String label(Row r) {
        String text = r.getString(2);
        return AttentionDemo.pretty(r.getString(0)) + " #" + r.getInt(1) + ": \""
            + (text.length() > 90 ? text.substring(0, 87) + "..." : text) + "\"";
    }

    private static float[] floats(List<Object> list) {
        float[] f = new float[list.size()];
        for (int i = 0; i < f.length; i++) {
            f[i] = ((Number) list.get(i)).floatValue();
        }
        return f;
    }

    private static double cosine(float[] a, float[] b) {
        double dot = 0, na = 0, nb = 0;
        for (int i = 0; i < a.length; i++) {
            dot += (double) a[i] * b[i];
            na += (double) a[i] * a[i];
            nb += (double) b[i] * b[i];
        }
        return na == 0 || nb == 0 ? 0 : dot / Math.sqrt(na * nb);
    }
}

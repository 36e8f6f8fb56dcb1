package io.sparkattention.examples.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.sparkattention.testing.Fixtures;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The options of apply and sdpa: every enum and range is checked by the command line itself,
 * before Spark starts ({@code --master not-a-master} would fail otherwise), with the valid values
 * in the message; grouped-query heads, windows, the causal alignment and column names reach the
 * stage and give the float64 reference's numbers; an output can be fed back in.
 */
class CommandOptionsTest {

    private static final String NO_SPARK = "not-a-master";
    private static final String WEIGHTS = Fixtures.path("mha_self_basic").toString();  // E = 16, 4 heads

    @TempDir
    Path dir;

    private Cli.Result sdpa(Path in, Path out, String master, String... extra) {
        List<String> args = new ArrayList<>(List.of("sdpa", "--input", in.toString(), "--output", out.toString(),
            "--master", master));
        args.addAll(List.of(extra));
        return Cli.run(args.toArray(new String[0]));
    }

    private void assertRejected(String expectedLine, String... args) {
        Cli.Result result = Cli.run(args);
        assertEquals(2, result.exitCode, result.toString());
        assertEquals(List.of(expectedLine), result.errorLines());
        assertEquals(List.of("in.jsonl"), Cli.listNames(dir), "nothing written");
    }

    private String[] sdpaArgs(String... extra) {
        List<String> args = new ArrayList<>(List.of("sdpa", "--input", dir.resolve("in.jsonl").toString(), "--output",
            dir.resolve("out.jsonl").toString(), "--master", NO_SPARK));
        args.addAll(List.of(extra));
        return args.toArray(new String[0]);
    }

    @Test
    @DisplayName("enum options list their valid values and are refused before Spark starts")
    void enumsBeforeSpark() throws IOException {
        Files.writeString(dir.resolve("in.jsonl"), "{\"query\":[[1,0]]}\n");
        assertRejected("spark-attention sdpa: --strategy: expected one of auto, batch, head, sequence, got 'heads'",
            sdpaArgs("--strategy", "heads"));
        assertRejected("spark-attention apply: --strategy: expected one of auto, batch, head, sequence, got 'fast'",
            "apply", "--weights", WEIGHTS, "--num-heads", "4", "--input", dir.resolve("in.jsonl").toString(),
            "--output", dir.resolve("out.jsonl").toString(), "--master", NO_SPARK, "--strategy", "fast");
        assertRejected("spark-attention sdpa: --output-format: expected one of json, parquet, got 'xml'",
            sdpaArgs("--output-format", "xml"));
        assertRejected("spark-attention sdpa: --output-layout: expected one of auto, nested, flat, got 'wide'",
            sdpaArgs("--output-layout", "wide"));
        assertRejected("spark-attention sdpa: --causal-alignment: expected one of top-left, bottom-right, got 'diagonal'",
            sdpaArgs("--causal-alignment", "diagonal"));
        assertRejected("spark-attention heatmap: --scale: expected one of shared, per-panel, got 'log'",
            "heatmap", "--input", dir.resolve("in.jsonl").toString(), "--row", "0", "--output",
            dir.resolve("p.png").toString(), "--scale", "log", "--master", NO_SPARK);
    }

    @Test
    @DisplayName("ranges and forms of numbers are refused before Spark starts, naming the option")
    void rangesBeforeSpark() throws IOException {
        Files.writeString(dir.resolve("in.jsonl"), "{\"query\":[[1,0]]}\n");
        assertRejected("spark-attention sdpa: --window: expected LEFT,RIGHT (two integers, -1 for no bound), got '3'",
            sdpaArgs("--window", "3"));
        assertRejected("spark-attention sdpa: --window: LEFT must be an integer >= -1, got 'a' in 'a,2'",
            sdpaArgs("--window", "a,2"));
        assertRejected("spark-attention sdpa: --window: RIGHT must be >= 0, or -1 for no bound, got -2",
            sdpaArgs("--window", "1,-2"));
        assertRejected("spark-attention sdpa: --num-kv-heads (3) must divide --num-heads (4)",
            sdpaArgs("--num-heads", "4", "--num-kv-heads", "3"));
        assertRejected("spark-attention sdpa: --num-kv-heads (0) must divide --num-heads (1)",
            sdpaArgs("--num-kv-heads", "0"));
        assertRejected("spark-attention sdpa: --num-heads must be >= 1, got 0", sdpaArgs("--num-heads", "0"));
        assertRejected("spark-attention sdpa: --block-size must be in [1, 16384], got 0", sdpaArgs("--block-size", "0"));
        assertRejected("spark-attention sdpa: --block-size must be in [1, 16384], got 16385",
            sdpaArgs("--block-size", "16385"));
        assertRejected("spark-attention sdpa: --scale must be a finite number, got NaN", sdpaArgs("--scale", "NaN"));
        assertRejected("spark-attention sdpa: --output-col and --weights-col are both 'w': give them different names",
            sdpaArgs("--output-col", "w", "--weights-col", "w"));
        assertRejected("spark-attention sdpa: --query-col: the column name is empty", sdpaArgs("--query-col", " "));
        Cli.Result notANumber = Cli.run(sdpaArgs("--num-heads", "two"));
        assertEquals(2, notANumber.exitCode);
        assertTrue(notANumber.errorLines().get(0).contains("--num-heads"), notANumber.toString());
    }

    @Test
    @DisplayName("--num-kv-heads, --window, --causal-alignment and --causal give the float64 reference's numbers")
    void attentionOptionsReachTheStage() throws IOException {
        Random random = new Random(24);
        int heads = 4, kvHeads = 2, d = 3;
        List<double[][][]> rows = new ArrayList<>();
        List<Object> lines = new ArrayList<>();
        for (int r = 0; r < 3; r++) {
            int L = 2 + r, S = 4 + r;
            double[][][] qkv = {ReferenceAttention.random(random, L, heads * d),
                ReferenceAttention.random(random, S, kvHeads * d), ReferenceAttention.random(random, S, kvHeads * d)};
            rows.add(qkv);
            Map<String, Object> line = new LinkedHashMap<>();
            line.put("id", r);
            line.put("query", qkv[0]);
            line.put("key", qkv[1]);
            line.put("value", qkv[2]);
            lines.add(line);
        }
        Path in = dir.resolve("in.jsonl");
        Cli.writeJsonLines(in, lines);
        Object[][] cases = {
            {List.of(), false, false, -1, -1},
            {List.of("--causal"), true, false, -1, -1},
            {List.of("--causal", "--causal-alignment", "bottom-right"), true, true, -1, -1},
            {List.of("--window", "1,0", "--causal-alignment", "bottom-right"), false, true, 1, 0},
            {List.of("--window", "-1,1"), false, false, -1, 1},
            {List.of("--causal", "--window", "1,-1", "--strategy", "sequence", "--block-size", "2"), true, false, 1, -1},
        };
        int n = 0;
        for (Object[] c : cases) {
            Path out = dir.resolve("out" + n++ + ".jsonl");
            List<String> extra = new ArrayList<>(List.of("--num-heads", "4", "--num-kv-heads", "2"));
            @SuppressWarnings("unchecked")
            List<String> options = (List<String>) c[0];
            extra.addAll(options);
            Cli.Result result = sdpa(in, out, Cli.MASTER, extra.toArray(new String[0]));
            assertEquals(0, result.exitCode, result.toString());
            // Rows are matched by id: the sequence strategy does not keep the input's row order.
            Map<Integer, JsonNode> got = new java.util.HashMap<>();
            Cli.readJsonLines(out).forEach(row -> got.put(row.get("id").asInt(), row));
            assertEquals(rows.size(), got.size());
            for (int r = 0; r < rows.size(); r++) {
                double[][][] qkv = rows.get(r);
                double[][] want = ReferenceAttention.attention(qkv[0], qkv[1], qkv[2], heads, kvHeads, (boolean) c[1],
                    (boolean) c[2], (int) c[3], (int) c[4]);
                assertClose(want, got.get(r).get("attn_output"), options + " row " + r);
            }
        }
    }

    @Test
    @DisplayName("an output fed back in: refused with the option to use, then chained with --query-col and --output-col")
    void chaining() throws IOException {
        Random random = new Random(7);
        double[][] q = ReferenceAttention.random(random, 3, 4);
        Path in = dir.resolve("in.jsonl");
        Cli.writeJsonLines(in, List.of(Map.of("query", q)));
        Path first = dir.resolve("first.jsonl"), second = dir.resolve("second.jsonl");
        assertEquals(0, sdpa(in, first, Cli.MASTER, "--need-weights").exitCode);
        Cli.Result again = sdpa(first, second, Cli.MASTER);
        assertEquals(2, again.exitCode, again.toString());
        assertEquals(List.of("spark-attention sdpa: --input " + first + " already has a column attn_output (an earlier "
            + "output?); name the new column with --output-col, e.g. --output-col attn_output_2"), again.errorLines());
        Cli.Result weights = sdpa(first, second, Cli.MASTER, "--output-col", "second", "--need-weights");
        assertEquals(List.of("spark-attention sdpa: --input " + first + " already has a column attn_weights (an earlier "
            + "output?); name the new column with --weights-col, e.g. --weights-col attn_weights_2"), weights.errorLines());
        Cli.Result missing = sdpa(first, second, Cli.MASTER, "--query-col", "q");
        assertEquals(List.of("spark-attention sdpa: --input " + first + " has no column q (--query-col); its columns: "
            + "attn_output, attn_weights, query"), missing.errorLines());

        Cli.Result chained = sdpa(first, second, Cli.MASTER, "--query-col", "attn_output", "--output-col", "twice",
            "--weights-col", "w2");
        assertEquals(0, chained.exitCode, chained.toString());
        JsonNode row = Cli.readJsonLines(second).get(0);
        double[][] once = ReferenceAttention.attention(q, q, q, 1, 1, false, false, -1, -1);
        assertClose(ReferenceAttention.attention(once, once, once, 1, 1, false, false, -1, -1), row.get("twice"),
            "attention applied twice");
        assertEquals(3, row.get("w2").size(), "the weights column has the name given");
        assertTrue(row.has("attn_output") && row.has("attn_weights") && row.has("query"), "input columns are kept");
    }

    @Test
    @DisplayName("--output-layout flat writes one array of L·W numbers per row, nested (and auto on nested input) L arrays")
    void outputLayout() throws IOException {
        double[][] q = ReferenceAttention.random(new Random(3), 3, 4);
        Path in = dir.resolve("in.jsonl");
        Cli.writeJsonLines(in, List.of(Map.of("query", q)));
        double[][] want = ReferenceAttention.attention(q, q, q, 1, 1, false, false, -1, -1);
        for (String layout : List.of("auto", "nested", "flat")) {
            Path out = dir.resolve(layout + ".jsonl");
            Cli.Result run = sdpa(in, out, Cli.MASTER, "--output-layout", layout);
            assertEquals(0, run.exitCode, run.toString());
            JsonNode got = Cli.readJsonLines(out).get(0).get("attn_output");
            if (layout.equals("flat")) {
                assertEquals(12, got.size(), "L·W numbers: " + got);
                for (int i = 0; i < 12; i++) {
                    assertEquals(want[i / 4][i % 4], got.get(i).asDouble(), 1e-5, layout + " [" + i + "]");
                }
            } else {
                assertClose(want, got, layout);
            }
        }
    }

    private static void assertClose(double[][] want, JsonNode got, String what) {
        assertEquals(want.length, got.size(), what + ": rows");
        for (int i = 0; i < want.length; i++) {
            for (int c = 0; c < want[i].length; c++) {
                double g = got.get(i).get(c).asDouble();
                assertEquals(want[i][c], g, 1e-5, what + " [" + i + "][" + c + "]");
            }
        }
    }
}

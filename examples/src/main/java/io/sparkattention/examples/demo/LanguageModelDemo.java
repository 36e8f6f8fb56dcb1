package io.sparkattention.examples.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sparkattention.io.GptModelFiles;
import io.sparkattention.ml.lm.GptLanguageModel;
import io.sparkattention.ml.lm.GptLanguageModeler;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

import static org.apache.spark.sql.functions.sum;

/**
 * {@code demo-lm}: a byte-level GPT trained on the six Austen novels where they are read, beside a
 * byte bigram model fitted in the same run. The books' bytes (files in name order, one stream) are
 * cut into blocks; every {@value #HOLDOUT_EVERY}th block is held out. The language model
 * ({@link GptLanguageModeler}: each block one sequence, AdamW, warmup and cosine decay) prints its
 * bits per byte on every {@value #HOLDOUT_EVERY}th held-out block as it trains (a forward pass over
 * all of them would cost as much as many steps), next to the bigram's on the same blocks; when it
 * is done, both are measured on every held-out block, and the model continues three Austen
 * openings. Writes the model directory ({@code model/}: config.json, model.safetensors,
 * tokenizer.json), {@code samples.txt} and {@code summary.json}.
 */
public final class LanguageModelDemo {

    /** Every this-many-th block of the text is held out. */
    public static final int HOLDOUT_EVERY = 10;
    /** The openings the model continues. */
    public static final List<String> OPENINGS = List.of("It is a truth universally acknowledged, that ",
        "Emma Woodhouse, handsome, clever, and rich, ", "Sir Walter Elliot, of Kellynch Hall, ");
    /** Austen sentences the model should find more likely than the same words shuffled. */
    public static final List<String> SENTENCES = List.of(
        "She was the youngest of the two daughters of a most affectionate, indulgent father.",
        "It was a very fine day, and they walked together to the village.",
        "Mr. Darcy had been standing near enough for her to overhear a conversation.");
    /** The samples' temperature and nucleus. */
    static final double SAMPLE_TEMPERATURE = 0.8;
    static final double SAMPLE_TOP_P = 0.95;
    /** The shortest block: room for the longest opening and a continuation of it. */
    public static final int MIN_BLOCK_SIZE = 64;
    /** The model directory under the output. */
    public static final String MODEL_DIR = "model";

    private static final double LN2 = Math.log(2);

    /** What the demo trains: the model's shape and the optimiser's steps. */
    public static final class Settings {
        public String corpus;
        public Path output;
        public int layers = 3;
        public int width = 128;
        public int heads = 4;
        public int blockSize = 128;
        public int maxIter = 800;
        public int rowsPerStep = 16;
        public double stepSize = 3e-3;
        public int warmupSteps = 30;
        public int evalEvery = 50;
        public long seed = 7;
    }

    private final SparkSession spark;
    private final PrintStream out;

    public LanguageModelDemo(SparkSession spark, PrintStream out) {
        this.spark = spark;
        this.out = out;
    }

    /** Runs the demo into {@code s.output} and returns its summary (also written as summary.json). */
    public ObjectNode run(Settings s) throws IOException {
        long start = System.nanoTime();
        List<int[]> training = new ArrayList<>();
        List<int[]> heldOut = new ArrayList<>();
        long bytes = blocks(s.corpus, s.blockSize, training, heldOut);
        out.printf(Locale.ROOT, "corpus: %,d bytes, %,d blocks of %d: %,d training, %,d held out (every %dth)%n",
            bytes, training.size() + heldOut.size(), s.blockSize, training.size(), heldOut.size(), HOLDOUT_EVERY);
        List<int[]> watched = new ArrayList<>();
        for (int k = HOLDOUT_EVERY - 1; k < heldOut.size(); k += HOLDOUT_EVERY) {
            watched.add(heldOut.get(k));
        }
        ByteBigram bigram = ByteBigram.fit(training);
        double bigramBits = bigram.bitsPerByte(heldOut);
        double bigramWatched = bigram.bitsPerByte(watched);
        out.printf(Locale.ROOT, "byte bigram: %.3f bits/byte on the held-out blocks, %.3f on the %,d watched as the "
            + "model trains%n", bigramBits, bigramWatched, watched.size());
        out.flush();
        GptLanguageModeler modeler = new GptLanguageModeler().setNLayer(s.layers).setNEmbd(s.width).setNHead(s.heads)
            .setBlockSize(s.blockSize).setTokenizer("bytes").setIdsCol("input_ids").setPacking(false)
            .setEvalEvery(s.evalEvery).setStepSize(s.stepSize).setWarmupSteps(s.warmupSteps).setSchedule("cosine")
            .setWeightDecay(0.1).setDropout(0).setMaxIter(s.maxIter).setRowsPerStep(s.rowsPerStep).setSeed(s.seed);
        modeler.setValidationListener((i, loss) -> {
            out.printf(Locale.ROOT, "step %4d/%d: %.3f bits/byte on the watched held-out blocks (bigram %.3f), %.0f s%n",
                i, s.maxIter, loss / LN2, bigramWatched, (System.nanoTime() - start) / 1e9);
            out.flush();
        });
        GptLanguageModel model = modeler.fit(frame(training), frame(watched));
        Row sums = model.transform(frame(heldOut)).agg(sum("log_prob"), sum("tokens")).first();
        double modelBits = -sums.getDouble(0) / sums.getLong(1) / LN2;
        double trainSeconds = (System.nanoTime() - start) / 1e9;
        List<String> samples = samples(model, s.seed);
        ArrayNode sentences = new ObjectMapper().createArrayNode();
        for (String sentence : SENTENCES) {
            String shuffled = shuffled(sentence, s.seed);
            double real = logProb(model, sentence);
            double mixed = logProb(model, shuffled);
            sentences.addObject().put("text", sentence).put("log_prob", real).put("shuffled", shuffled)
                .put("shuffled_log_prob", mixed);
            out.printf(Locale.ROOT, "log-likelihood %.1f nats, shuffled %.1f: %s%n", real, mixed, sentence);
        }
        Path dir = s.output.resolve(MODEL_DIR);
        Files.createDirectories(dir);
        GptModelFiles.write(model.decoder(), dir);
        Files.write(dir.resolve(GptModelFiles.TOKENIZER), model.tokenizerJson());
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < samples.size(); i++) {
            out.println("--- " + OPENINGS.get(i) + samples.get(i));
            text.append(OPENINGS.get(i)).append(samples.get(i)).append("\n\n");
        }
        Files.writeString(s.output.resolve("samples.txt"), text.toString(), StandardCharsets.UTF_8);
        ObjectMapper json = new ObjectMapper();
        ObjectNode summary = json.createObjectNode();
        summary.put("val_bits_per_byte", modelBits);
        summary.put("bigram_bits_per_byte", bigramBits);
        summary.put("ratio_to_bigram", modelBits / bigramBits);
        summary.put("training_blocks", training.size());
        summary.put("held_out_blocks", heldOut.size());
        summary.put("steps", model.summary().totalIterations());
        summary.put("seconds", Math.round(trainSeconds * 10) / 10.0);
        summary.put("model", String.format(Locale.ROOT, "%d layers, %d wide, %d heads, block %d, byte vocabulary",
            s.layers, s.width, s.heads, s.blockSize));
        summary.set("sentences", sentences);
        ArrayNode shown = summary.putArray("samples");
        for (int i = 0; i < samples.size(); i++) {
            shown.addObject().put("prompt", OPENINGS.get(i)).put("continuation", samples.get(i));
        }
        Files.writeString(s.output.resolve("summary.json"), json.writerWithDefaultPrettyPrinter()
            .writeValueAsString(summary), StandardCharsets.UTF_8);
        out.printf(Locale.ROOT, "held out: %.3f bits/byte, %.2f of the bigram's %.3f (%.0f s)%n", modelBits,
            modelBits / bigramBits, bigramBits, trainSeconds);
        return summary;
    }

    /** The books' bytes in file-name order as one stream, cut into blocks; every HOLDOUT_EVERY-th held out. */
    static long blocks(String corpus, int blockSize, List<int[]> training, List<int[]> heldOut) throws IOException {
        List<Path> books;
        try (Stream<Path> files = Files.list(Path.of(corpus))) {
            books = files.filter(Files::isRegularFile).sorted().toList();
        }
        java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
        for (Path book : books) {
            all.write(Files.readAllBytes(book));
        }
        byte[] stream = all.toByteArray();
        for (int k = 0; (long) (k + 1) * blockSize <= stream.length; k++) {
            int[] block = new int[blockSize];
            for (int i = 0; i < blockSize; i++) {
                block[i] = stream[k * blockSize + i] & 0xFF;
            }
            (k % HOLDOUT_EVERY == HOLDOUT_EVERY - 1 ? heldOut : training).add(block);
        }
        return stream.length;
    }

    /** The sentence's words in another order, drawn from {@code seed}. */
    static String shuffled(String sentence, long seed) {
        List<String> words = new ArrayList<>(List.of(sentence.split(" ")));
        List<String> original = List.copyOf(words);
        java.util.Random random = new java.util.Random(seed);
        while (words.equals(original)) {
            java.util.Collections.shuffle(words, random);
        }
        return String.join(" ", words);
    }

    /** The model's natural-log likelihood of a text's bytes (each after the first, given those before). */
    private double logProb(GptLanguageModel model, String text) {
        StructType schema = new StructType().add("input_ids", DataTypes.createArrayType(DataTypes.IntegerType, false));
        Row row = RowFactory.create((Object) bytes(text));
        return model.transform(spark.createDataFrame(List.of(row), schema)).first().getDouble(1);
    }

    /** A text's UTF-8 bytes as byte-tokenizer ids. */
    static int[] bytes(String text) {
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        int[] ids = new int[utf8.length];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = utf8[i] & 0xFF;
        }
        return ids;
    }

    /** Blocks as rows of {@code input_ids}, in order, in the cluster's default parallelism. */
    private Dataset<Row> frame(List<int[]> blocks) {
        List<Row> rows = new ArrayList<>(blocks.size());
        for (int[] block : blocks) {
            rows.add(RowFactory.create((Object) block));
        }
        JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
        StructType schema = new StructType().add("input_ids", DataTypes.createArrayType(DataTypes.IntegerType, false));
        return spark.createDataFrame(sc.parallelize(rows, sc.defaultParallelism()), schema);
    }

    /** Each opening continued by sampled bytes up to the model's positions (the same count for each), as text. */
    private List<String> samples(GptLanguageModel model, long seed) {
        List<Row> prompts = new ArrayList<>();
        int longest = 0;
        for (String opening : OPENINGS) {
            longest = Math.max(longest, opening.getBytes(StandardCharsets.UTF_8).length);
        }
        for (String opening : OPENINGS) {
            prompts.add(RowFactory.create((Object) bytes(opening)));
        }
        StructType schema = new StructType().add("input_ids", DataTypes.createArrayType(DataTypes.IntegerType, false));
        List<Row> generated = model.setMaxNewTokens(model.decoder().config().positions() - longest)
            .setTemperature(SAMPLE_TEMPERATURE).setTopP(SAMPLE_TOP_P).setSeed(seed)
            .generate(spark.createDataFrame(prompts, schema)).collectAsList();
        List<String> texts = new ArrayList<>();
        for (Row row : generated) {
            texts.add(row.getString(row.fieldIndex("generated_text")));
        }
        return texts;
    }
}

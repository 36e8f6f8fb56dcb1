package io.sparkattention.examples.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sparkattention.io.BundledModels;
import io.sparkattention.ml.classification.AttentionClassificationModel;
import io.sparkattention.ml.classification.BertClassificationModel;
import io.sparkattention.ml.MultiHeadAttentionModel;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.feature.StringIndexerModel;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

import static org.apache.spark.ml.functions.vector_to_array;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.size;

/**
 * The main job: which Jane Austen novel does a passage come from? A corpus of books → passages →
 * tokens → a held-out split by blocks of consecutive passages → Word2Vec token vectors + sinusoidal
 * positions → an attention classifier trained on Spark, compared on the held-out passages with
 * the majority class, logistic regression on TF-IDF, and logistic regression on the mean of the
 * same word + position vectors (the classifier without attention). A pretrained encoder,
 * all-MiniLM-L6-v2, runs on Spark over a fixed subset of the passages ({@link MiniLm}): logistic
 * regression on its sentence embeddings and the attention classifier on its token states join the
 * comparison. Then the trained attention runs over every passage (contextual vectors and an
 * attention-pooled vector per passage, written as Parquet), its heads and MiniLM's are drawn for a
 * few passages, and the passages nearest to one of them by MiniLM's embeddings are listed.
 *
 * <p>Writes into {@code settings.output}: {@code passages.parquet/}, {@code model/} (the fitted
 * PipelineModel from text to predicted book), {@code attention_classifier.safetensors} (the
 * classifier's PyTorch state_dict), {@code pictures/*.png}, {@code attention.html} and
 * {@code summary.json}.
 */
public final class AttentionDemo {

    /**
     * Adam steps of the attention classifier by default: with {@link #DEFAULT_MINI_BATCH_FRACTION}
     * about seven passes over the training passages, sized to keep the whole demo within a few
     * minutes on two cores.
     */
    public static final int DEFAULT_MAX_ITER = 150;
    /** Adam's learning rate by default: a small network (about 17,000 parameters at E = 64) trains fast at 1e-2. */
    public static final double DEFAULT_STEP_SIZE = 0.01;
    /** Expected fraction of the training passages in each step by default: about 650 of 13,000. */
    public static final double DEFAULT_MINI_BATCH_FRACTION = 0.05;

    /** What the demo runs on and where it writes. */
    public static final class Settings {
        /** Directory of plain-text books, one file per book. */
        public String corpus;
        /** Output directory (must be writable; the caller handles replacing it). */
        public Path output;
        /** Where the output will be once the caller has moved it there (messages name it); null: {@code output}. */
        public Path publishedAs;
        /** Attention heads. */
        public int heads = 4;
        /** Embedding dimension (Word2Vec vector size); heads must divide it. */
        public int dim = 64;
        /** Passages drawn with attention pictures. */
        public int pictures = 3;
        /** How many nearest passages to print. */
        public int nearest = 5;
        /** Seed of Word2Vec and of the classifier's initial weights and mini-batches. */
        public long seed = 42;
        /** Consecutive passages per held-out block. */
        public int blockPassages = BookSplit.DEFAULT_BLOCK_PASSAGES;
        /** Every this-many-th block is held out. */
        public int holdoutEvery = BookSplit.DEFAULT_HOLDOUT_EVERY;
        /** Adam steps of the attention classifier. */
        public int maxIter = DEFAULT_MAX_ITER;
        /** Adam's learning rate. */
        public double stepSize = DEFAULT_STEP_SIZE;
        /** Expected fraction of the training passages in each step's mini-batch. */
        public double miniBatchFraction = DEFAULT_MINI_BATCH_FRACTION;
    }

    private static final int PHASES = 16;

    private final SparkSession spark;
    private final PrintStream out;

    public AttentionDemo(SparkSession spark, PrintStream out) {
        this.spark = spark;
        this.out = out;
    }

    /** Runs the demo and returns its summary (also written as summary.json). */
    public ObjectNode run(Settings s) throws IOException {
        Progress progress = new Progress(out, PHASES);
        Path shown = s.publishedAs == null ? s.output : s.publishedAs;
        Files.createDirectories(s.output);
        BookSplit split = new BookSplit(s.blockPassages, s.holdoutEvery);

        // (1) passages
        Dataset<Row> passages = Passages.read(spark, s.corpus).persist(StorageLevel.MEMORY_AND_DISK());
        long passageCount = passages.count();
        if (passageCount == 0) {
            throw new IllegalArgumentException("corpus " + s.corpus + " has no passage of at least "
                + Passages.MIN_WORDS + " words");
        }
        long books = passages.select("book").distinct().count();
        progress.phase("passages", Progress.count(passageCount) + " passages from " + books + " books");

        // (2) tokens, the label and the split
        StringIndexerModel labels = BookModel.labels(passages);
        Dataset<Row> tokenized = labels.transform(BookModel.tokenizer().transform(passages))
            .where(size(col("tokens")).gt(0))
            .withColumn("held_out", split.heldOut(col("passage")))
            .persist(StorageLevel.MEMORY_AND_DISK());
        long tokenCount = tokenized.select(size(col("tokens")).cast("long").as("n")).groupBy().sum("n").first().getLong(0);
        progress.phase("tokenize", Progress.count(tokenCount) + " tokens");

        // (3) split
        Dataset<Row> training = tokenized.where(col("held_out").unary_$bang());
        Dataset<Row> heldOut = tokenized.where(col("held_out"));
        long trainingCount = training.count();
        long heldOutCount = heldOut.count();
        if (trainingCount == 0 || heldOutCount == 0) {
            throw new IllegalArgumentException("the split (" + split.describe() + ") leaves " + trainingCount
                + " training and " + heldOutCount + " held-out passages; both need at least one (corpus " + s.corpus
                + ", --block-passages, --holdout-every)");
        }
        progress.phase("split", Progress.count(trainingCount) + " training, " + Progress.count(heldOutCount)
            + " held-out passages (" + split.describe() + ")");

        // (4) Word2Vec on the training passages, plus positions: the x every model after the tokens sees
        TokenEmbeddingModel embedding = BookModel.embedding(training, s.dim, s.seed);
        Dataset<Row> trainingX = BookModel.positions().transform(embedding.transform(training));
        Dataset<Row> heldOutX = BookModel.positions().transform(embedding.transform(heldOut));
        progress.phase("embed", "Word2Vec on the training passages: " + Progress.count(embedding.vocabularySize())
            + " words × " + s.dim + ", plus sinusoidal positions");

        // (5, 6) the comparison models
        double majorityLabel = Baselines.majorityLabel(training);
        double majority = Baselines.accuracy(heldOut.withColumn("prediction", lit(majorityLabel)));
        double tfidf = Baselines.tfidfLogisticRegression(training, heldOut);
        progress.phase("tf-idf", "majority class; logistic regression on TF-IDF (" + Baselines.TFIDF_FEATURES
            + " hashed words)");
        double meanVector = Baselines.meanEmbeddingLogisticRegression(trainingX, heldOutX);
        progress.phase("mean-vec", "logistic regression on the mean word + position vector (" + s.dim + " features)");

        // (7-9) all-MiniLM-L6-v2 on Spark over a fixed subset: its sentence embeddings and token states
        long minilmStart = System.nanoTime();
        Dataset<Row> minilm = MiniLm.encode(MiniLm.subset(tokenized).select("book", "passage", "text", "label",
            "held_out")).persist(StorageLevel.MEMORY_AND_DISK());
        long minilmTexts = minilm.count();
        double minilmSeconds = (System.nanoTime() - minilmStart) / 1e9;
        long minilmTokens = MiniLm.tokens(minilm);
        progress.phase("minilm", String.format(Locale.ROOT, "all-MiniLM-L6-v2 on %s passages (%s): %s WordPiece "
                + "tokens, %.0f tokens/s", Progress.count(minilmTexts), MiniLm.describeSubset(),
            Progress.count(minilmTokens), minilmTokens / minilmSeconds));
        Dataset<Row> minilmTraining = minilm.where(col("held_out").unary_$bang());
        Dataset<Row> minilmHeldOut = minilm.where(col("held_out"));
        double minilmLr = Baselines.vectorLogisticRegression(minilmTraining, minilmHeldOut, "minilm_embedding");
        progress.phase("minilm-lr", "logistic regression on MiniLM's sentence embeddings (" + MiniLm.HIDDEN
            + " features)");
        AttentionClassificationModel minilmClassifier = MiniLm.trainClassifier(minilmTraining, s);
        double minilmAttention = Baselines.accuracy(minilmClassifier.transform(minilmHeldOut));
        double[] minilmHistory = minilmClassifier.summary().objectiveHistory();
        progress.phase("minilm-attn", String.format(Locale.ROOT, "AttentionClassifier on MiniLM's token states "
                + "(E = %d, encoder frozen): %d Adam steps, training loss %.3f → %.3f", MiniLm.HIDDEN,
            minilmClassifier.summary().totalIterations(), minilmHistory[0], minilmHistory[minilmHistory.length - 1]));
        BertClassificationModel fineTuned = MiniLm.fineTune(minilmTraining, s);
        double minilmFineTuned = Baselines.accuracy(fineTuned.transform(minilmHeldOut));
        double[] fineTuneHistory = fineTuned.summary().objectiveHistory();
        progress.phase("minilm-ft", String.format(Locale.ROOT, "all-MiniLM-L6-v2 fine-tuned (top %d layer and a "
                + "head): %d AdamW steps, training loss %.3f → %.3f", MiniLm.FINE_TUNE_LAYERS,
            fineTuned.summary().totalIterations(), fineTuneHistory[0], fineTuneHistory[fineTuneHistory.length - 1]));

        // (10) the attention classifier
        AttentionClassificationModel classifier = BookModel.train(trainingX, s);
        double[] history = classifier.summary().objectiveHistory();
        PipelineModel bookModel = BookModel.assemble(passages, labels, embedding, classifier);
        bookModel.write().overwrite().save(s.output.resolve("model").toString());
        classifier.exportPyTorch(s.output.resolve("attention_classifier.safetensors").toString());
        progress.phase("train", String.format(Locale.ROOT, "AttentionClassifier, %d heads of %d: %d Adam steps "
                + "(step size %s, mini-batches of %.0f%%), training loss %.3f → %.3f; model saved", s.heads,
            s.dim / s.heads, classifier.summary().totalIterations(), s.stepSize, 100 * s.miniBatchFraction, history[0],
            history[history.length - 1]));

        // (11) the trained model over every passage, written as Parquet
        long attentionStart = System.nanoTime();
        MultiHeadAttentionModel attention = classifier.attention().setOutputCol("contextual")
            .setWeightsCol("attn_weights");
        Dataset<Row> applied = new AttentionPooling().setInputCol("contextual").setWeightsCol("attn_weights")
            .setOutputCol("pooled").transform(attention.transform(bookModel.transform(tokenized.drop("tokens"))));
        String parquet = s.output.resolve("passages.parquet").toString();
        applied.select("book", "passage", "held_out", "text", "tokens", "predicted_book", "contextual", "attn_weights",
                "pooled")
            .write().mode("overwrite").parquet(parquet);
        double attentionSeconds = (System.nanoTime() - attentionStart) / 1e9;
        progress.phase("attend", Progress.count(passageCount) + " passages → " + shown.resolve("passages.parquet")
            + String.format(Locale.ROOT, " (%,.0f tokens/s)", tokenCount / attentionSeconds));

        // (12) pictures: per-head weights of the trained attention for a few short passages, and MiniLM's own heads
        List<Row> pictured = s.pictures == 0 ? List.of()
            : DemoPictures.draw(tokenized, bookModel, attention, s.pictures, s.output);
        Path minilmPicture = s.pictures == 0 ? null
            : MiniLm.drawHeads(NearestPassages.query(minilm.select("book", "passage", "text")), s.output.resolve(
                "pictures"));
        progress.phase("pictures", pictured.size() + " passages → " + shown.resolve("pictures") + ", "
            + shown.resolve("attention.html") + (minilmPicture == null ? "" : "; MiniLM's layer "
            + MiniLm.PICTURE_LAYER + ", heads " + MiniLm.heads(MiniLm.PICTURE_HEADS) + " → "
            + shown.resolve("pictures").resolve(minilmPicture.getFileName())));

        // (13) nearest passages by MiniLM's sentence embeddings
        Dataset<Row> result = spark.read().parquet(parquet);
        List<String> nearest = NearestPassages.of(minilm.withColumn("pooled",
            vector_to_array(col("minilm_embedding"), "float32")), s.nearest);
        progress.phase("nearest", "top " + s.nearest + " by cosine of MiniLM's sentence embeddings (centred)");
        for (String line : nearest) {
            out.println("    " + line);
        }

        // (14) accuracy on the held-out passages
        Dataset<Row> heldOutResult = result.where(col("held_out"));
        double attentionAccuracy = heldOutResult.where(col("predicted_book").equalTo(col("book"))).count()
            / (double) heldOutCount;
        progress.phase("accuracy", Progress.count(heldOutCount) + " held-out passages, " + split.describe());
        String majorityBook = pretty(labels.labelsArray()[0][(int) majorityLabel]);
        out.printf(Locale.ROOT, "    %-62s %.3f%n", "majority class (" + majorityBook + ")", majority);
        out.printf(Locale.ROOT, "    %-62s %.3f%n", "logistic regression on TF-IDF", tfidf);
        out.printf(Locale.ROOT, "    %-62s %.3f%n", "logistic regression on the mean word + position vector",
            meanVector);
        out.printf(Locale.ROOT, "    %-62s %.3f%n", "attention classifier (" + s.heads + " heads, mean pooling)",
            attentionAccuracy);
        out.printf(Locale.ROOT, "    %-62s %.3f%n", "logistic regression on all-MiniLM-L6-v2 sentence embeddings",
            minilmLr);
        out.printf(Locale.ROOT, "    %-62s %.3f%n", "attention classifier on all-MiniLM-L6-v2 token states ("
            + s.heads + " heads)", minilmAttention);
        out.printf(Locale.ROOT, "    %-62s %.3f%n", "all-MiniLM-L6-v2 fine-tuned (top " + MiniLm.FINE_TUNE_LAYERS
            + " layer and a head)", minilmFineTuned);

        // (15) summary
        ObjectMapper json = new ObjectMapper();
        ObjectNode summary = json.createObjectNode();
        summary.put("passages", passageCount);
        summary.put("books", books);
        summary.put("tokens", tokenCount);
        ObjectNode splitNode = summary.putObject("split");
        splitNode.put("rule", split.describe());
        splitNode.put("block_passages", s.blockPassages);
        splitNode.put("holdout_every", s.holdoutEvery);
        splitNode.put("training_passages", trainingCount);
        splitNode.put("held_out_passages", heldOutCount);
        ObjectNode accuracy = summary.putObject("accuracy");
        accuracy.put("majority", majority);
        accuracy.put("tfidf_logistic_regression", tfidf);
        accuracy.put("mean_embedding_logistic_regression", meanVector);
        accuracy.put("attention_classifier", attentionAccuracy);
        accuracy.put("minilm_logistic_regression", minilmLr);
        accuracy.put("attention_classifier_minilm", minilmAttention);
        accuracy.put("minilm_fine_tuned", minilmFineTuned);
        ObjectNode encoderNode = summary.putObject("encoder");
        encoderNode.put("model", BundledModels.ALL_MINILM_L6_V2);
        encoderNode.put("subset", MiniLm.describeSubset());
        encoderNode.put("held_out_passages", heldOutCount);
        encoderNode.put("training_passages", minilmTexts - heldOutCount);
        encoderNode.put("texts", minilmTexts);
        encoderNode.put("tokens", minilmTokens);
        encoderNode.put("seconds", round(minilmSeconds));
        encoderNode.put("tokens_per_second", Math.round(minilmTokens / minilmSeconds));
        encoderNode.put("classifier_max_iter", MiniLm.MAX_ITER);
        encoderNode.put("classifier_mini_batch_fraction", MiniLm.MINI_BATCH_FRACTION);
        ObjectNode fineTuneNode = encoderNode.putObject("fine_tune");
        fineTuneNode.put("trainable_layers", MiniLm.FINE_TUNE_LAYERS);
        fineTuneNode.put("steps", fineTuned.summary().totalIterations());
        fineTuneNode.put("batch", MiniLm.FINE_TUNE_BATCH);
        fineTuneNode.put("step_size", MiniLm.FINE_TUNE_STEP_SIZE);
        encoderNode.put("picture_layer", MiniLm.PICTURE_LAYER);
        encoderNode.putPOJO("picture_heads", MiniLm.PICTURE_HEADS);
        encoderNode.put("nearest_by", "minilm_embedding");
        ObjectNode train = summary.putObject("training");
        train.put("solver", "adam");
        train.put("max_iter", s.maxIter);
        train.put("step_size", s.stepSize);
        train.put("mini_batch_fraction", s.miniBatchFraction);
        train.put("seed", s.seed);
        train.put("first_loss", history[0]);
        train.put("final_loss", history[history.length - 1]);
        summary.put("attention_seconds", round(attentionSeconds));
        summary.put("tokens_per_second", Math.round(tokenCount / attentionSeconds));
        summary.set("phase_seconds", progress.phaseSeconds(json));
        summary.put("heads", s.heads);
        summary.put("dim", s.dim);
        summary.put("output", shown.resolve("passages.parquet").toString());
        summary.put("model", shown.resolve("model").toString());
        summary.put("pytorch", shown.resolve("attention_classifier.safetensors").toString());
        summary.put("pictures", shown.resolve("pictures").toString());
        summary.put("html", shown.resolve("attention.html").toString());
        progress.phase("summary", shown.resolve("summary.json").toString());
        summary.put("total_seconds", round(progress.elapsedSeconds()));
        Files.writeString(s.output.resolve("summary.json"),
            json.writerWithDefaultPrettyPrinter().writeValueAsString(summary), StandardCharsets.UTF_8);
        out.printf(Locale.ROOT, "%nspark-attention demo: %,d passages, %,d tokens; held-out accuracy %.3f (attention) "
                + "vs %.3f (TF-IDF), %.3f (mean vector), %.3f (majority); %.1f s in all%n  output:   %s%n  model:    %s%n"
                + "  pictures: %s%n  page:     %s%n", passageCount, tokenCount, attentionAccuracy, tfidf, meanVector,
            majority, progress.elapsedSeconds(), shown.resolve("passages.parquet"), shown.resolve("model"),
            shown.resolve("pictures"), shown.resolve("attention.html"));
        passages.unpersist();
        tokenized.unpersist();
        minilm.unpersist();
        return summary;
    }

    /** "pride_and_prejudice" → "Pride and prejudice". */
    static String pretty(String book) {
        String s = book.replace('_', ' ');
        return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }

    private static double round(double x) {
        return Math.round(x * 100.0) / 100.0;
    }
}

package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import io.sparkattention.examples.common.Outputs;
import io.sparkattention.examples.demo.AttentionDemo;
import io.sparkattention.examples.demo.BookSplit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.util.concurrent.Callable;

/** {@code spark-attention demo}: the main job on the bundled Jane Austen corpus (see {@link AttentionDemo}). */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = {"Trains an attention classifier to tell which book a passage comes from: passages → tokens → "
        + "a held-out split by blocks of consecutive passages → Word2Vec embeddings + positions → AttentionClassifier, "
        + "compared on the held-out passages with the majority class and logistic regression on TF-IDF and on the "
        + "mean vector. Then the trained attention over every passage (Parquet), pictures of its heads (PNG + HTML), "
        + "and the passages nearest to one of them."},
    modelTransformer = DemoOptions.DefaultOutput.class)
final class DemoCommand implements Callable<Integer> {

    /** --corpus, --output (default {@code demo-output}), --master. */
    @Mixin
    DemoOptions demo;

    @Option(names = "--heads", defaultValue = "4", description = "Attention heads (default: ${DEFAULT-VALUE}).")
    int heads;

    @Option(names = "--dim", defaultValue = "64", description = "Embedding dimension (default: ${DEFAULT-VALUE}).")
    int dim;

    @Option(names = "--pictures", defaultValue = "3", description = "Passages drawn (default: ${DEFAULT-VALUE}).")
    int pictures;

    @Option(names = "--max-iter", defaultValue = "" + AttentionDemo.DEFAULT_MAX_ITER,
        description = "Adam steps of the attention classifier (default: ${DEFAULT-VALUE}).")
    int maxIter;

    @Option(names = "--step-size", defaultValue = "" + AttentionDemo.DEFAULT_STEP_SIZE,
        description = "Adam's learning rate (default: ${DEFAULT-VALUE}).")
    double stepSize;

    @Option(names = "--mini-batch-fraction", defaultValue = "" + AttentionDemo.DEFAULT_MINI_BATCH_FRACTION,
        description = "Expected fraction of the training passages in each step (default: ${DEFAULT-VALUE}).")
    double miniBatchFraction;

    @Option(names = "--block-passages", defaultValue = "" + BookSplit.DEFAULT_BLOCK_PASSAGES,
        description = "Consecutive passages per block of the held-out split (default: ${DEFAULT-VALUE}).")
    int blockPassages;

    @Option(names = "--holdout-every", defaultValue = "" + BookSplit.DEFAULT_HOLDOUT_EVERY,
        description = "Every this-many-th block of each book is held out (default: ${DEFAULT-VALUE}).")
    int holdoutEvery;

    @Override
    public Integer call() throws IOException {
        HeadsOptions.checkDivides(dim, heads, "--heads", "--dim", "");
        if (pictures < 0) {
            throw new BadInputException("--pictures must be >= 0, got " + pictures);
        }
        if (maxIter < 1) {
            throw new BadInputException("--max-iter must be >= 1, got " + maxIter);
        }
        if (!(stepSize > 0) || Double.isInfinite(stepSize)) {
            throw new BadInputException("--step-size must be a positive number, got " + stepSize);
        }
        if (!(miniBatchFraction > 0 && miniBatchFraction <= 1)) {
            throw new BadInputException("--mini-batch-fraction must be in (0, 1], got " + miniBatchFraction);
        }
        if (blockPassages < 1) {
            throw new BadInputException("--block-passages must be >= 1, got " + blockPassages);
        }
        if (holdoutEvery < 2) {
            throw new BadInputException("--holdout-every must be >= 2, got " + holdoutEvery);
        }
        String corpusDir = demo.dir();
        try (Outputs out = demo.outputs(corpusDir)) {
            AttentionDemo.Settings settings = new AttentionDemo.Settings();
            settings.corpus = corpusDir;
            settings.heads = heads;
            settings.dim = dim;
            settings.pictures = pictures;
            settings.maxIter = maxIter;
            settings.stepSize = stepSize;
            settings.miniBatchFraction = miniBatchFraction;
            settings.blockPassages = blockPassages;
            settings.holdoutEvery = holdoutEvery;
            settings.output = out.main().localPath();
            settings.publishedAs = out.main().local();
            new AttentionDemo(demo.master.start("demo", out), System.out).run(settings);
            out.publish();
            return 0;
        }
    }
}

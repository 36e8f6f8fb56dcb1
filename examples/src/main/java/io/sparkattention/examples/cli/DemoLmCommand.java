package io.sparkattention.examples.cli;

import io.sparkattention.examples.common.BadInputException;
import io.sparkattention.examples.common.Outputs;
import io.sparkattention.examples.common.PngMark;
import io.sparkattention.examples.demo.LanguageModelDemo;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code spark-attention demo-lm}: a byte-level GPT trained on the bundled Austen novels beside a
 * byte bigram model ({@link LanguageModelDemo}), then a picture of its last layer's causal heads
 * over an opening ({@link GptHeatmap}, {@code heads.png}).
 */
@Command(name = "demo-lm", mixinStandardHelpOptions = true,
    description = {"Trains a byte-level GPT on the six Austen novels (every 10th block of the text held out), printing "
        + "its held-out bits per byte as it goes beside a byte bigram model fitted in the same run, then continues "
        + "three Austen openings. Writes model/ (config.json, model.safetensors, tokenizer.json: for perplexity "
        + "--text-col and generate), samples.txt, heads.png (the last layer's causal heads over an opening) and "
        + "summary.json (val_bits_per_byte, bigram_bits_per_byte, the samples)."},
    modelTransformer = DemoOptions.DefaultOutput.class)
final class DemoLmCommand implements Callable<Integer> {

    /** --corpus, --output (default {@code demo-lm-output}), --master. */
    @Mixin
    DemoOptions demo;

    private final LanguageModelDemo.Settings defaults = new LanguageModelDemo.Settings();

    @Option(names = "--n-layer", paramLabel = "L", description = "Blocks (default: 3).")
    int layers = defaults.layers;

    @Option(names = "--n-embd", paramLabel = "E", description = "Width (default: 128).")
    int width = defaults.width;

    @Option(names = "--n-head", paramLabel = "H", description = "Attention heads (default: 4).")
    int heads = defaults.heads;

    @Option(names = "--block-size", paramLabel = "B", description = "Bytes per block (default: 128).")
    int blockSize = defaults.blockSize;

    @Option(names = "--max-iter", paramLabel = "T", description = "AdamW steps (default: 800).")
    int maxIter = defaults.maxIter;

    @Option(names = "--rows-per-step", paramLabel = "R", description = "Blocks a step samples on average (default: 16).")
    int rowsPerStep = defaults.rowsPerStep;

    @Option(names = "--step-size", paramLabel = "LR", description = "Peak learning rate (default: 3e-3).")
    double stepSize = defaults.stepSize;

    @Option(names = "--eval-every", paramLabel = "N", description = "Held-out loss every N steps (default: 50).")
    int evalEvery = defaults.evalEvery;

    @Override
    public Integer call() throws IOException {
        HeadsOptions.checkDivides(width, heads, "--n-head", "--n-embd", "");
        atLeast("--n-layer", layers, 1);
        atLeast("--block-size", blockSize, LanguageModelDemo.MIN_BLOCK_SIZE);
        atLeast("--max-iter", maxIter, 1);
        atLeast("--rows-per-step", rowsPerStep, 1);
        atLeast("--eval-every", evalEvery, 1);
        if (!(stepSize > 0) || Double.isInfinite(stepSize)) {
            throw new BadInputException("--step-size must be a positive number, got " + stepSize);
        }
        String corpusDir = demo.dir();
        try (Outputs out = demo.outputs(corpusDir)) {
            LanguageModelDemo.Settings s = new LanguageModelDemo.Settings();
            s.corpus = corpusDir;
            s.output = out.main().localPath();
            s.layers = layers;
            s.width = width;
            s.heads = heads;
            s.blockSize = blockSize;
            s.maxIter = maxIter;
            s.rowsPerStep = rowsPerStep;
            s.stepSize = stepSize;
            s.evalEvery = evalEvery;
            new LanguageModelDemo(demo.master.start("demo-lm", out), System.out).run(s);
            Path model = s.output.resolve(LanguageModelDemo.MODEL_DIR);
            PngMark.write(GptHeatmap.of(model.toString(), LanguageModelDemo.OPENINGS.get(0).strip(), layers - 1)
                .toImage(), s.output.resolve("heads.png"));
            out.publish();
            return 0;
        }
    }

    private static void atLeast(String option, int value, int least) {
        if (value < least) {
            throw new BadInputException(option + " must be >= " + least + ", got " + value);
        }
    }
}

package io.sparkattention.examples.cli;

import io.sparkattention.examples.bench.BenchCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code spark-attention} command line ({@code examples/bin/spark-attention}).
 *
 * <p>Exit codes: 0 success; 2 bad input or usage (a one-line message on stderr naming the
 * column, row, file or parameter); 1 an internal failure (with its stack trace).
 */
@Command(name = "spark-attention", mixinStandardHelpOptions = true, version = "spark-attention 0.1.0",
    description = "Transformer attention over Apache Spark DataFrames.",
    subcommands = {DemoCommand.class, ApplyCommand.class, SdpaCommand.class, EmbedCommand.class, BenchCommand.class,
        DescribeCommand.class,
        HeatmapCommand.class, ScalingCommand.class, TrainCommand.class, FineTuneCommand.class, PredictCommand.class,
        PerplexityCommand.class, GenerateCommand.class, TrainLmCommand.class,
        DemoLmCommand.class})
public final class SparkAttentionCli implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Runs the command line and exits with its code. */
    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the command line and returns its exit code (tests call this). */
    public static int run(String... args) {
        CommandLine cli = new CommandLine(new SparkAttentionCli());
        cli.setParameterExceptionHandler(ErrorReporting::onUsageError);
        cli.setExecutionExceptionHandler(ErrorReporting::onExecutionError);
        return cli.execute(args);
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "missing command: one of "
            + String.join(", ", spec.subcommands().keySet()));
    }
}

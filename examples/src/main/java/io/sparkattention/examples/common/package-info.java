/**
 * What the command line's packages share: the Spark session every command starts
 * ({@link io.sparkattention.examples.common.SparkSessions}), the one-line error with exit code 2
 * ({@link io.sparkattention.examples.common.BadInputException}), and the output handle
 * ({@link io.sparkattention.examples.common.Outputs}: checked before any Spark work, written in a
 * staging directory, put in place whole, discarded on failure; a lab's single file through
 * {@link io.sparkattention.examples.common.OutputFile}). The user's commands ({@code examples.cli})
 * and the lab ({@code examples.bench}, {@code examples.scaling}) import it; it imports neither.
 */
package io.sparkattention.examples.common;

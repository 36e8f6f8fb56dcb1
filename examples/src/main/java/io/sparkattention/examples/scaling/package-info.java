/**
 * The {@code spark-attention scaling} measurement: the tiled kernel against naive attention
 * (full n×n scores), each point measured in a fresh JVM ({@link
 * io.sparkattention.examples.scaling.ScalingRunner}, {@link
 * io.sparkattention.examples.scaling.ScalingProbe}) and drawn as a log-log plot of time and peak
 * heap ({@link io.sparkattention.examples.scaling.ScalingChart}).
 */
package io.sparkattention.examples.scaling;

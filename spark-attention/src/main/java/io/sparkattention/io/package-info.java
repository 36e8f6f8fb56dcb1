/**
 * Tensor files in and out of the library: the {@code safetensors} format ({@link
 * io.sparkattention.io.SafeTensors}, {@link io.sparkattention.io.SafeTensorsWriter}), numpy's
 * {@code .npy} ({@link io.sparkattention.io.Npy}), and the mapping of PyTorch's
 * {@code nn.MultiheadAttention} state_dict onto {@link io.sparkattention.nn.MultiHeadAttentionWeights}
 * ({@link io.sparkattention.io.MultiHeadAttentionStateDict}, {@link io.sparkattention.io.PyTorchMasks}).
 *
 * <p>Every reader treats its input as untrusted: sizes found in a header are checked against the
 * file's real size before anything is allocated, and every problem with a file's content is a
 * {@link io.sparkattention.io.TensorFormatException} that names the file and, where one is
 * concerned, the tensor. No class here imports Spark.
 */
package io.sparkattention.io;

/**
 * The adapters through which the library uses Spark's non-public APIs (classes Spark marks
 * {@code private[sql]}/{@code private[ml]}, or that live in its {@code catalyst},
 * {@code execution} and {@code classic} packages): {@link io.sparkattention.sparkinternal.InternalFrames}
 * (a DataFrame as an RDD of Catalyst rows and back), {@link io.sparkattention.sparkinternal.CatalystColumns}
 * (a Column as a Catalyst expression and back), {@link io.sparkattention.sparkinternal.ParamsMetadata}
 * (MLlib's params metadata and reader), {@link io.sparkattention.sparkinternal.MLSchemas} (ML
 * attributes on output columns) and {@link io.sparkattention.sparkinternal.PartitionLocations} (a
 * partition's cached blocks' host, {@code private[spark]}). The Catalyst data types themselves ({@code InternalRow},
 * {@code ArrayData}, {@code UnsafeArrayData}, ...) are used directly by the row codec and the
 * execution strategies, which read and write them in place for speed; docs/ARCHITECTURE.md lists
 * every internal API, the class that uses it and why.
 */
package io.sparkattention.sparkinternal;

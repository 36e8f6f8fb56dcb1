/**
 * Command-line support for attention pictures: finding row N of a JSON-lines or Parquet input in
 * a deterministic file order ({@link io.sparkattention.examples.viz.InputRows}).
 */
package io.sparkattention.examples.viz;

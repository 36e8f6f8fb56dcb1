package io.sparkattention.exec;

import java.io.Serializable;

/** The result of an {@link AttentionUnit}: a piece of one row's attended output. */
interface UnitResult extends Serializable {

    /** Writes this piece into its place in the row's output. */
    void addTo(RowOutput output);
}

package io.sparkattention.kernel;

/**
 * The current key tile's K and V rows as the products read them: copied contiguous into the
 * {@link Workspace} when the tile implementation wants them so ({@link TileOps#packsKeyValues}),
 * else the inputs in place. Row {@code j} of the sequence view is at {@code k[kOff + j·ldk]} and
 * {@code v[vOff + j·ldv]} either way (a packed tile's offset is shifted by the tile's first key).
 * One per pass and head; {@link #load} per tile allocates nothing.
 */
final class KeyValueTile {

    private final boolean packed;
    private final MatrixView keys, values;
    private final float[] keyBuffer, valueBuffer;
    private final int d, dv, packedLdk, packedLdv;

    float[] k, v;
    int kOff, ldk, vOff, ldv;

    /**
     * @param packedLdv distance between value rows in a packed tile (dv, or more when the products
     *                  read V like keys, see {@link Workspace#keyRow})
     */
    KeyValueTile(TileOps ops, Workspace ws, MatrixView keys, MatrixView values, int d, int dv, int packedLdv) {
        this.packed = ops.packsKeyValues();
        this.keys = keys;
        this.values = values;
        this.keyBuffer = ws.keys;
        this.valueBuffer = ws.values;
        this.d = d;
        this.dv = dv;
        this.packedLdk = Workspace.keyRow(d);
        this.packedLdv = packedLdv;
        if (!packed) {
            k = keys.data();
            kOff = keys.offset();
            ldk = keys.ld();
            v = values.data();
            vOff = values.offset();
            ldv = values.ld();
        }
    }

    /** Makes keys {@code [j0, j1)} of the view readable. */
    void load(int j0, int j1) {
        if (packed) {
            Workspace.packRows(j1 - j0, d, keys.data(), keys.at(j0, 0), keys.ld(), keyBuffer, packedLdk);
            Workspace.packRows(j1 - j0, dv, values.data(), values.at(j0, 0), values.ld(), valueBuffer, packedLdv);
            k = keyBuffer;
            kOff = -j0 * packedLdk;
            ldk = packedLdk;
            v = valueBuffer;
            vOff = -j0 * packedLdv;
            ldv = packedLdv;
        }
    }
}

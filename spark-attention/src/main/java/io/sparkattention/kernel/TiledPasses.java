package io.sparkattention.kernel;

import java.util.Arrays;
import java.util.concurrent.ForkJoinPool;

/**
 * The tiled path's calls behind {@link FlashAttention}'s entry points, on views whose arguments the
 * entry points have checked: the forward pass by (head, query block), sequential or on a pool;
 * the weights recomputed from the log-sum-exp; the backward pass's units ({@link BackwardUnits}).
 * Every pass walks the same tiles ({@link TileWalk}) with the same masks ({@link Masking}).
 */
final class TiledPasses {

    private final AttentionSpec spec;
    private final TileOps ops;
    private final BlockPolicy blocks;

    TiledPasses(AttentionSpec spec, TileOps ops, BlockPolicy blocks) {
        this.spec = spec;
        this.ops = ops;
        this.blocks = blocks;
    }

    /** Every head's queries on the calling thread, with dropout on the probabilities when not null. */
    void forward(AttentionShape shape, MatrixView q, MatrixView k, MatrixView v, RowMask mask, MatrixView out,
                 float[] lse, int lseOff, ProbabilityDropout dropout, Workspace ws) {
        KeyBand band = new KeyBand(spec, shape.queryLength(), shape.keyLength(), mask.validKeys());
        int Bq = blocks.queryBlockFor(shape);
        ws.ensure(Math.min(Bq, shape.queryLength()), blocks.keyBlock(), shape.headDim(), shape.valueDim());
        for (int h = 0; h < shape.numHeads(); h++) {
            forwardRows(shape, h, 0, shape.queryLength(), Bq, band, q, k, v, mask, out, lse, lseOff, dropout, ws);
        }
    }

    /** (head, query block) units on {@code pool}'s threads, largest first; each unit's arithmetic as in {@link #forward}. */
    void forward(AttentionShape shape, MatrixView q, MatrixView k, MatrixView v, RowMask mask, MatrixView out,
                 float[] lse, ForkJoinPool pool) {
        int L = shape.queryLength(), H = shape.numHeads(), Bq = blocks.queryBlockFor(shape);
        KeyBand band = new KeyBand(spec, L, shape.keyLength(), mask.validKeys());
        // every head has the same block order
        int[] order = ParallelUnits.blocksLargestFirst(band, L, shape.keyLength(), Bq);
        ParallelUnits.run(pool, H * order.length,
            ws -> ws.ensure(Math.min(Bq, L), blocks.keyBlock(), shape.headDim(), shape.valueDim()),
            (unit, ws) -> {
                int r0 = order[unit / H] * Bq;
                forwardRows(shape, unit % H, r0, Math.min(L, r0 + Bq), Bq, band, q, k, v, mask, out, lse, 0, null,
                    ws);
            });
    }

    /** Queries {@code [r0, r1)} of head {@code h}, in blocks of {@code Bq}. */
    private void forwardRows(AttentionShape shape, int h, int r0, int r1, int Bq, KeyBand band, MatrixView q,
                             MatrixView k, MatrixView v, RowMask mask, MatrixView out, float[] lse, int lseOff,
                             ProbabilityDropout dropout, Workspace ws) {
        int L = shape.queryLength(), S = shape.keyLength();
        int d = shape.headDim(), dv = shape.valueDim(), kv = shape.kvHeadOf(h);
        ForwardPass pass = new ForwardPass(ops, ws, band, spec.scaleFor(d), d, dv, r0, 0,
            q.columns(r0, h * d), k.columns(0, kv * d), v.columns(0, kv * dv),
            MaskView.headPlane(mask.allowed(), h, L, S, r0),
            MatrixView.headPlane(mask.bias(), h, L, S, r0),
            out.columns(r0, h * dv), lse, lseOff + h * L + r0, dropout, h);
        TileWalk.run(ops, band, Bq, blocks.keyBlock(), r1 - r0, S, r0, 0, pass);
    }

    /** Weights {@code exp(scores − lse)} per head (H×L×S) or averaged (L×S), head by head. */
    void weights(AttentionShape shape, MatrixView q, MatrixView k, RowMask mask, float[] lse, int lseOff,
                 boolean perHead, float[] weights, Workspace ws) {
        int L = shape.queryLength(), S = shape.keyLength(), H = shape.numHeads(), d = shape.headDim();
        long plane = (long) L * S;
        Arrays.fill(weights, 0f);
        float scale = spec.scaleFor(d);
        float factor = perHead ? 1f : 1f / H;
        KeyBand band = new KeyBand(spec, L, S, mask.validKeys());
        ws.ensure(Math.min(blocks.queryBlock(), L), blocks.keyBlock(), d, 1);
        for (int h = 0; h < H; h++) {
            int kv = shape.kvHeadOf(h);
            ProbabilitiesPass pass = new ProbabilitiesPass(ops, ws, band, scale, d,
                q.columns(0, h * d), k.columns(0, kv * d),
                MaskView.headPlane(mask.allowed(), h, L, S, 0), MatrixView.headPlane(mask.bias(), h, L, S, 0),
                lse, lseOff + h * L, new MatrixView(weights, perHead ? (int) (h * plane) : 0, S), factor);
            TileWalk.run(ops, band, blocks.queryBlock(), blocks.keyBlock(), L, S, 0, 0, pass);
        }
    }

    /** Zeroes the gradients' views (the units add into them) and cuts the call's units. */
    BackwardUnits backwardUnits(AttentionShape shape, MatrixView q, MatrixView k, MatrixView v, RowMask mask,
                                MatrixView out, float[] lse, int lseOff, MatrixView dOut,
                                MatrixView dq, MatrixView dk, MatrixView dv, float[] dBias,
                                ProbabilityDropout dropout) {
        int L = shape.queryLength(), S = shape.keyLength();
        dq.zero(L, shape.numHeads() * shape.headDim());
        dk.zero(S, shape.numKvHeads() * shape.headDim());
        dv.zero(S, shape.numKvHeads() * shape.valueDim());
        if (dBias != null) {
            Arrays.fill(dBias, 0f);
        }
        KeyBand band = new KeyBand(spec, L, S, mask.validKeys());
        return new BackwardUnits(ops, blocks, spec.scaleFor(shape.headDim()), shape, band, mask,
            q, k, v, out, lse, lseOff, dOut, dq, dk, dv, dBias, dropout);
    }
}

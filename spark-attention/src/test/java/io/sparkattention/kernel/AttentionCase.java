package io.sparkattention.kernel;

import io.sparkattention.testing.RandomTensors;

/** One random case for the kernels against the reference: a shape, a spec, a mask and inputs, drawn from a seed. */
final class AttentionCase {

    final String label;
    final AttentionSpec spec;
    final AttentionShape shape;
    final RowMask mask;
    final float[] q, k, v;
    /** True when Q and K were drawn 8 times as large as usual (nearly one-hot rows). */
    final boolean largeLogits;

    AttentionCase(String label, AttentionSpec spec, AttentionShape shape, RowMask mask, float[] q, float[] k, float[] v,
                  boolean largeLogits) {
        this.label = label;
        this.largeLogits = largeLogits;
        this.spec = spec;
        this.shape = shape;
        this.mask = mask;
        this.q = q;
        this.k = k;
        this.v = v;
    }

    /** The label, so that a parameterized test's name says which case it ran. */
    @Override
    public String toString() {
        return label;
    }

    static AttentionCase random(long seed) {
        RandomTensors rnd = new RandomTensors(seed);
        int L = rnd.pick(0, 1, 2, 3, 7, 16, 17, 31, 64, 65, 100, 129);
        int S = rnd.uniform() < 0.4 ? L : rnd.pick(0, 1, 2, 5, 16, 33, 64, 70, 128, 130, 257);
        int hkv = rnd.pick(1, 1, 2, 3);
        int H = hkv * rnd.pick(1, 1, 2, 3);
        // 64 = Workspace.KEY_ROW: below it key rows are padded to 64, above it they keep their length
        int d = rnd.pick(1, 3, 4, 8, 16, 64, 64, 65, 80);
        int dv = rnd.uniform() < 0.5 ? d : rnd.pick(1, 5, 12, 32);
        AttentionSpec spec = AttentionSpec.defaults()
            .withBlocks(rnd.pick(1, 4, 7, 16, 32, 128, 256), rnd.pick(1, 3, 8, 16, 64, 128, 256));
        if (rnd.uniform() < 0.5) {
            spec = spec.withCausal(true);
        }
        if (rnd.uniform() < 0.5) {
            spec = spec.withAlignment(CausalAlignment.BOTTOM_RIGHT);
        }
        if (rnd.uniform() < 0.3) {
            spec = spec.withWindow(rnd.pick(AttentionSpec.UNBOUNDED, 0, 1, 5, 20),
                rnd.pick(AttentionSpec.UNBOUNDED, 0, 2, 9));
        }
        if (rnd.uniform() < 0.2) {
            spec = spec.withScale((float) rnd.uniform() * 0.5f);
        }
        RowMask mask = RowMask.NONE;
        if (rnd.uniform() < 0.4) {
            mask = mask.withKeyLength(rnd.between(0, S));
        }
        int plane = L * S;
        if (rnd.uniform() < 0.3) {
            mask = mask.withAllowed(rnd.bernoulli(rnd.uniform() < 0.5 ? plane : H * plane, 0.7));
        }
        if (rnd.uniform() < 0.3) {
            float[] bias = rnd.normal(rnd.uniform() < 0.5 ? plane : H * plane, 1.0);
            for (int i = 0; i < bias.length; i++) {
                if (rnd.uniform() < 0.1) {
                    bias[i] = Float.NEGATIVE_INFINITY;
                }
            }
            mask = mask.withBias(bias);
        }
        double inputScale = rnd.uniform() < 0.2 ? 8.0 : 1.0;  // large logits
        AttentionShape shape = new AttentionShape(L, S, H, hkv, d, dv);
        return new AttentionCase("seed " + seed + ": " + shape + ", " + spec + ", keyLength=" + mask.validKeys()
            + ", boolMask=" + (mask.allowed() != null) + ", bias=" + (mask.bias() != null) + ", x" + inputScale,
            spec, shape, mask, rnd.normal(shape.querySize(), inputScale), rnd.normal(shape.keySize(), inputScale),
            rnd.normal(shape.valueSize(), 1.0), inputScale > 1);
    }
}

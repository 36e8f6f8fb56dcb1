package io.sparkattention.kernel;

/** {@link OnlineSoftmax} in plain Java with {@link Math#exp}: the fallback without the Vector API. */
final class ScalarSoftmax extends OnlineSoftmax {

    @Override
    void update(int w, int lds, int nk, float[] s, float[] m, float[] l, float[] alpha, int off, float[] acc,
                int accOff, int accQs, int accCs, int dv) {
        for (int r = 0; r < w; r++) {
            updateLane(r, lds, nk, s, m, l, off, acc, accOff, accQs, accCs, dv);
        }
    }

    @Override
    void expMinus(int w, int lds, int nk, float[] s, float[] shift, int off) {
        for (int r = 0; r < w; r++) {
            expMinusLane(r, lds, nk, s, shift, off);
        }
    }

    @Override
    String name() {
        return "scalar-exp";
    }
}

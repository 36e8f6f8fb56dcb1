package io.sparkattention.examples.bench;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;

import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.util.Map;

/**
 * ONNX Runtime running the bundled all-MiniLM-L6-v2 ONNX file in this JVM, as its Java users run
 * it: all graph optimisations, T intra-op threads, inter-op 1, and padded batches of
 * {@code input_ids}, {@code attention_mask} and {@code token_type_ids} (all int64 [B, L]). Its
 * threads do not spin-wait between runs ({@link OrtBenchmark#sessionOptions}: in a round-robin run
 * spinning threads slow the next contender).
 */
public final class OrtEncoder implements AutoCloseable {

    /** The model's hidden width (all-MiniLM-L6-v2). */
    static final int HIDDEN = 384;

    private final OrtEnvironment env = OrtEnvironment.getEnvironment();
    private final OrtSession session;
    private final int threads;

    public OrtEncoder(int threads) {
        this.threads = threads;
        try (OrtSession.SessionOptions options = OrtBenchmark.sessionOptions(threads)) {
            session = env.createSession(BundledMiniLm.onnxBytes(), options);
        } catch (OrtException e) {
            throw new IllegalStateException("ONNX Runtime could not load " + BundledMiniLm.ONNX + ": " + e.getMessage(),
                e);
        }
    }

    int threads() {
        return threads;
    }

    /** One padded batch's input tensors, made once and run many times. */
    final class Batch implements AutoCloseable {
        final int[] rows;
        final int[] lengths;
        final int longest;
        private final OnnxTensor ids, mask, types;

        /**
         * @param rows the texts' indices in the batch
         * @param all  every text's ids
         */
        Batch(int[] rows, int[][] all) throws OrtException {
            this.rows = rows;
            this.lengths = new int[rows.length];
            int max = 0;
            for (int r = 0; r < rows.length; r++) {
                lengths[r] = all[rows[r]].length;
                max = Math.max(max, lengths[r]);
            }
            this.longest = max;
            long[] idValues = new long[rows.length * max];
            long[] maskValues = new long[rows.length * max];
            for (int r = 0; r < rows.length; r++) {
                int[] row = all[rows[r]];
                for (int j = 0; j < row.length; j++) {
                    idValues[r * max + j] = row[j];
                    maskValues[r * max + j] = 1;
                }
            }
            long[] shape = {rows.length, max};
            ids = OnnxTensor.createTensor(env, LongBuffer.wrap(idValues), shape);
            mask = OnnxTensor.createTensor(env, LongBuffer.wrap(maskValues), shape);
            types = OnnxTensor.createTensor(env, LongBuffer.wrap(new long[rows.length * max]), shape);
        }

        /**
         * Runs the batch and hands each row's last hidden states to {@code sink}: the output
         * [B, longest, 384] and the row's offset into it, with its unpadded length.
         */
        void run(RowSink sink) {
            try (OrtSession.Result result = session.run(Map.of("input_ids", ids, "attention_mask", mask,
                "token_type_ids", types))) {
                FloatBuffer out = ((OnnxTensor) result.get(0)).getFloatBuffer();
                float[] states = new float[out.remaining()];
                out.get(states);
                for (int r = 0; r < rows.length; r++) {
                    sink.accept(rows[r], states, r * longest * HIDDEN, lengths[r]);
                }
            } catch (OrtException e) {
                throw new IllegalStateException("ONNX Runtime run failed: " + e.getMessage(), e);
            }
        }

        @Override
        public void close() {
            ids.close();
            mask.close();
            types.close();
        }
    }

    /** Receives one text's last hidden states: {@code length} rows of 384 from {@code offset}. */
    interface RowSink {
        void accept(int text, float[] states, int offset, int length);
    }

    @Override
    public void close() {
        try {
            session.close();
        } catch (OrtException e) {
            throw new IllegalStateException(e);
        }
    }
}

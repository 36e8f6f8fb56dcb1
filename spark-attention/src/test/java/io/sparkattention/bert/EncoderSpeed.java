package io.sparkattention.bert;

import io.sparkattention.io.BundledModels;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A quick throughput check of {@link BertEncoder#forward} on all-MiniLM-L6-v2 (not a test, not
 * the benchmark: {@code bench --encoder} is): sequences of 20–90 tokens (Austen-like passages of
 * 12–64 words), one row per thread at a time, prints tokens/s per round and the median.
 *
 * <pre>
 *   java --add-modules jdk.incubator.vector -cp … io.sparkattention.nn.EncoderSpeed [threads] [rounds] [rows] [batch]
 * </pre>
 */
public final class EncoderSpeed {

    private EncoderSpeed() {
    }

    public static void main(String[] args) throws Exception {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 2;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 7;
        int rows = args.length > 2 ? Integer.parseInt(args[2]) : 400;
        int batchRows = args.length > 3 ? Integer.parseInt(args[3]) : 1;
        BertEncoder encoder = BundledModels.encoder(BundledModels.ALL_MINILM_L6_V2);
        Random r = new Random(42);
        List<int[]> texts = new ArrayList<>();
        long tokens = 0;
        for (int i = 0; i < rows; i++) {
            int[] ids = new int[20 + r.nextInt(71)];
            ids[0] = 101;
            for (int j = 1; j < ids.length - 1; j++) {
                ids[j] = 1000 + r.nextInt(28000);
            }
            ids[ids.length - 1] = 102;
            texts.add(ids);
            tokens += ids.length;
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        double[] rates = new double[rounds];
        double[] cpuRates = new double[rounds];
        java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
        for (int round = -2; round < rounds; round++) {
            long t0 = System.nanoTime();
            List<Future<Long>> parts = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int first = t;
                parts.add(pool.submit(() -> {
                    long c0 = cpu.getCurrentThreadCpuTime();
                    List<int[]> mine = new ArrayList<>();
                    for (int i = first; i < texts.size(); i += threads) {
                        mine.add(texts.get(i));
                    }
                    for (int i = 0; i < mine.size(); i += batchRows) {
                        if (batchRows == 1) {
                            encoder.forward(mine.get(i));
                        } else {
                            encoder.forward(mine.subList(i, Math.min(mine.size(), i + batchRows)).toArray(new int[0][]));
                        }
                    }
                    return cpu.getCurrentThreadCpuTime() - c0;
                }));
            }
            long cpuNanos = 0;
            for (Future<Long> f : parts) {
                cpuNanos += f.get();
            }
            double s = (System.nanoTime() - t0) / 1e9;
            // tokens per CPU-second of the workers, times the threads: the rate with a core each
            double perCores = tokens / (cpuNanos / 1e9) * threads;
            if (round >= 0) {
                rates[round] = tokens / s;
                cpuRates[round] = perCores;
            }
            System.out.printf("round %d: %.0f tokens/s wall (%.2f s), %.0f tokens/s per %d CPU-seconds%n", round,
                tokens / s, s, perCores, threads);
        }
        pool.shutdown();
        Arrays.sort(rates);
        Arrays.sort(cpuRates);
        System.out.printf("median %.0f tokens/s wall, %.0f tokens/s on %d CPU-seconds; %d threads, %d rows, mean %.1f"
            + " tokens, %d per call%n", rates[rounds / 2], cpuRates[rounds / 2], threads, threads, rows,
            (double) tokens / rows, batchRows);
    }
}

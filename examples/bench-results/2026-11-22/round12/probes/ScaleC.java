// Round 12 probe: Scale512 for causal attention (third argument "causal"), with the JIT compiler threads' CPU time per
// repetition from /proc/self/task (c=, in ms, 10 ms ticks) instead of CompilationMXBean.   ... ScaleC 512 3 causal
import io.sparkattention.kernel.*;
import java.lang.management.*;
import java.util.*;
import java.util.concurrent.*;

public class ScaleC {
    static boolean CAUSAL;
    public static void main(String[] a) throws Exception {
        CAUSAL = a.length > 2;
        int n = Integer.parseInt(a[0]), sets = Integer.parseInt(a[1]);
        ThreadMXBean tmx = ManagementFactory.getThreadMXBean();
        Random rnd = new Random(1);
        int bh = 16, d = 64;
        // warm-up like the bench: n=512, 4 heads
        {
            AttentionShape s = AttentionShape.self(512, 4, d);
            float[] q = rnd(rnd, 4 * 512 * d), k = rnd(rnd, 4 * 512 * d), v = rnd(rnd, 4 * 512 * d), o = new float[4 * 512 * d];
            ForkJoinPool pool = new ForkJoinPool(2);
            FlashAttention f = new FlashAttention(AttentionSpec.defaults().withCausal(CAUSAL));
            long t0 = System.nanoTime();
            while (System.nanoTime() - t0 < 3e9) f.forward(s, q, k, v, RowMask.NONE, o, null, pool);
            pool.shutdown();
        }
        AttentionShape s = AttentionShape.self(n, bh, d);
        float[] q = rnd(rnd, bh * n * d), k = rnd(rnd, bh * n * d), v = rnd(rnd, bh * n * d), o = new float[bh * n * d];
        for (int set = 0; set < sets; set++) {
            ForkJoinPool pool = new ForkJoinPool(2);
            FlashAttention f = new FlashAttention(AttentionSpec.defaults().withCausal(CAUSAL));
            StringBuilder sb = new StringBuilder();
            for (int r = 0; r < 15; r++) {
                Map<Long, Long> before = cpu(tmx); long jit0 = compilerTicks(); long gc0 = gcms(); long pc0 = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
                long m0 = tmx.getCurrentThreadCpuTime(); long t0 = System.nanoTime();
                f.forward(s, q, k, v, RowMask.NONE, o, null, pool);
                double wall = (System.nanoTime() - t0) / 1e6; double mainCpu = (tmx.getCurrentThreadCpuTime() - m0) / 1e6;
                Map<Long, Long> after = cpu(tmx); long jit = (compilerTicks() - jit0) * 10; long gc = gcms() - gc0; double pc = (((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime() - pc0) / 1e6;
                // per-thread cpu deltas over 1 ms
                List<String> parts = new ArrayList<>();
                for (Map.Entry<Long, Long> e : after.entrySet()) {
                    long dlt = e.getValue() - before.getOrDefault(e.getKey(), 0L);
                    if (dlt > 500_000) {
                        ThreadInfo ti = tmx.getThreadInfo(e.getKey());
                        parts.add((ti == null ? "?" : ti.getThreadName().replaceAll("ForkJoinPool-", "P")) + "=" + String.format("%.1f", dlt / 1e6));
                    }
                }
                sb.append(String.format("%.1f%s{jit=%d,main=%.2f} ", wall, parts, jit, mainCpu));
            }
            System.out.println("set " + set + ": " + sb);
            pool.shutdown();
        }
    }
    static long compilerTicks() {
        long t = 0;
        java.io.File[] tasks = new java.io.File("/proc/self/task").listFiles();
        for (java.io.File f : tasks) {
            try {
                String st = new String(java.nio.file.Files.readAllBytes(new java.io.File(f, "stat").toPath()));
                int a = st.indexOf('('), b = st.lastIndexOf(')');
                String name = st.substring(a + 1, b);
                if (!name.contains("Compiler")) continue;
                String[] x = st.substring(b + 2).split(" ");
                t += Long.parseLong(x[11]) + Long.parseLong(x[12]);
            } catch (Exception e) { }
        }
        return t;
    }
    static long gcms() { long t = 0; for (GarbageCollectorMXBean g : ManagementFactory.getGarbageCollectorMXBeans()) t += g.getCollectionTime(); return t; }
    static Map<Long, Long> cpu(ThreadMXBean tmx) {
        Map<Long, Long> m = new HashMap<>();
        for (long id : tmx.getAllThreadIds()) m.put(id, tmx.getThreadCpuTime(id));
        return m;
    }
    static float[] rnd(Random r, int n) { float[] x = new float[n]; for (int i = 0; i < n; i++) x[i] = (float) r.nextGaussian(); return x; }
}

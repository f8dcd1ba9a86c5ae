package org.paratrain.cli.bench;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.paratrain.cli.Main;
import org.paratrain.comm.BackendException;
import org.paratrain.comm.JobLaunch;
import org.paratrain.train.Backend;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code paratrain bench mpi}: MPI latency and bandwidth from paratrain and from a C program
 * built with mpicc, measured alternately in one run on 2 processes. What runs on the ranks is
 * {@link BenchMpiRanks}.
 */
@Command(name = "mpi", mixinStandardHelpOptions = true,
    description = {"MPI latency and bandwidth beside a C program built with mpicc.",
        "Measures, side by side with a C program built with mpicc: the one-way time of an 8-byte",
        "message, a 1-double allreduce and a 1,000,000-double allreduce, on 2 MPI processes; and the",
        "same on 2 processes over paratrain's TCP transport (the Spark backend's), over loopback."})
final class BenchMpiCommand implements Runnable {
    private static final double LATENCY_TARGET = 1.25;
    private static final double BANDWIDTH_TARGET = 1.1;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--rounds", defaultValue = "3", description = "Alternating C and Java runs (default ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--startup", description = "Instead, time start-up (mpirun to the end of MPI_Init) at 2 and 32 "
        + "ranks, 32 also as 2 processes of 16 ranks, with and without the ranks' ahead-of-time cache.")
    boolean startup;

    @Override
    public void run() {
        if (rounds < 1 || rounds > 20) {
            throw new IllegalArgumentException("--rounds must be in [1, 20], got " + rounds);
        }
        if (startup) {
            startup();
            return;
        }
        Path exe = CReference.build("mpi_bench");
        Map<String, Double> c = new LinkedHashMap<>();
        Map<String, Double> java = new LinkedHashMap<>();
        Map<String, Double> tcp = new LinkedHashMap<>();
        JobLaunch two = new JobLaunch(2, null, List.of(), List.of());
        for (int r = 0; r < rounds; r++) {
            best(c, capture(exe.toString(), two, null));
            best(java, capture(null, two, List.of("bench", "mpi-worker")));
            best(tcp, tcpRun(r));
        }
        var out = spec.commandLine().getOut();
        out.printf(Locale.ROOT, "2 processes, best of %d alternating runs (each the best of 5 repetitions); TCP is "
            + "paratrain's own transport over loopback, whose allreduce is the ring%n", rounds);
        out.println("| measurement | C (mpicc) | paratrain on MPI (Java, FFM) | paratrain on MPI / C | target "
            + "| paratrain over TCP | TCP / C |");
        out.println("|---|---:|---:|---:|---:|---:|---:|");
        row(out, "8-byte ping-pong, one way (us)", "pingpong_us", c, java, tcp, LATENCY_TARGET);
        row(out, "allreduce, 1 double (us)", "allreduce8_us", c, java, tcp, LATENCY_TARGET);
        row(out, "allreduce, 1,000,000 doubles (ms)", "allreduce1m_ms", c, java, tcp, BANDWIDTH_TARGET);
        double mpiRing = java.get("ring1m_ms");
        double tcpRing = tcp.get("ring1m_ms");
        out.printf(Locale.ROOT, "paratrain's ring allreduce of 1,000,000 doubles: %.3f ms on MPI's messages, %.3f ms on "
            + "TCP's (TCP / MPI %.2f); MPI's own allreduce %.3f ms%n", mpiRing, tcpRing, tcpRing / mpiRing,
            java.get("allreduce1m_ms"));
        out.printf(Locale.ROOT, "summary: tcp_allreduce1m_ms=%.3f mpi_allreduce1m_ms=%.3f c_allreduce1m_ms=%.3f "
            + "tcp_over_mpi=%.2f tcp_pingpong_us=%.2f mpi_pingpong_us=%.2f%n", tcp.get("allreduce1m_ms"),
            java.get("allreduce1m_ms"), c.get("allreduce1m_ms"), tcp.get("allreduce1m_ms") / java.get("allreduce1m_ms"),
            tcp.get("pingpong_us"), java.get("pingpong_us"));
    }

    /**
     * Two processes of this program meeting over loopback TCP as Spark's tasks do (a rendezvous
     * in this process, a secret of the run's own), measured as the MPI processes are; the
     * figures of rank 0.
     */
    private static Map<String, Double> tcpRun(int round) {
        org.paratrain.comm.tcp.JobKey key = org.paratrain.comm.tcp.JobKey.random("bench-tcp-" + round);
        Process one = null;
        try (org.paratrain.comm.tcp.TcpRendezvous rendezvous = org.paratrain.comm.tcp.TcpRendezvous.open("127.0.0.1", 2,
            key)) {
            ProcessBuilder[] pb = new ProcessBuilder[2];
            for (int r = 0; r < 2; r++) {
                pb[r] = ChildJvm.builder(ChildJvm.command("bench", "tcp-worker", "--rank", Integer.toString(r),
                    "--rendezvous", rendezvous.address(), "--attempt", key.attempt()));
                pb[r].environment().put(BenchMpiRanks.TcpWorker.SECRET_VARIABLE, key.secretHex());
            }
            one = pb[1].redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            Runnable unregister = org.paratrain.io.ExitCleanup.stopOnExit(one);
            try {
                CReference.Captured zero = CReference.capture(pb[0], java.time.Duration.ofMinutes(5),
                    "the TCP benchmark's rank 0");
                boolean oneEnded = one.waitFor(30, java.util.concurrent.TimeUnit.SECONDS);
                if (zero.status() != 0 || !oneEnded || one.exitValue() != 0) {
                    throw new BackendException("the TCP benchmark failed: "
                        + zero.text().strip().lines().reduce((a, b) -> b).orElse("no output"));
                }
                return figures(zero.text());
            } finally {
                unregister.run();
            }
        } catch (java.io.IOException e) {
            throw new BackendException("cannot start the TCP benchmark's ranks: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendException("interrupted while the TCP benchmark ran");
        } finally {
            if (one != null) {
                one.destroyForcibly();
            }
        }
    }

    private void startup() {
        Backend.prepareMpiStartupCache(Main.class.getName(), List.of("bench", "mpi-selftest", "--train"));
        var out = spec.commandLine().getOut();
        out.println("| ranks | processes x ranks each | ahead-of-time cache | mpirun to exit (s) | slowest rank: JVM "
            + "start to ready (s) |");
        out.println("|---:|---|---|---:|---:|");
        for (int[] layout : new int[][] {{2, 1}, {32, 1}, {2, 16}}) {
            for (boolean aot : new boolean[] {false, true}) {
                JobLaunch launch = new JobLaunch(layout[0], null, List.of(),
                    aot ? List.of() : List.of("-XX:AOTMode=off"), JobLaunch.DEFAULT_TIMEOUT_SECONDS, layout[1]);
                long t0 = System.nanoTime();
                Map<String, Double> f = capture(null, launch, List.of("bench", "mpi-init", "--ranks-per-process",
                    Integer.toString(layout[1])));
                double wall = (System.nanoTime() - t0) / 1e9;
                out.printf(Locale.ROOT, "| %d | %d x %d | %s | %.2f | %.2f |%n", layout[0] * layout[1], layout[0],
                    layout[1], aot ? "yes" : "no", wall, f.getOrDefault("init_ms", Double.NaN) / 1e3);
            }
        }
    }

    private static void row(java.io.PrintWriter out, String what, String key, Map<String, Double> c,
                            Map<String, Double> java, Map<String, Double> tcp, double target) {
        double ratio = java.get(key) / c.get(key);
        out.printf(Locale.ROOT, "| %s | %.3f | %.3f | %.2f | %s %.2f | %.3f | %.2f |%n", what, c.get(key), java.get(key),
            ratio, ratio <= target ? "met, <=" : "missed, <=", target, tcp.get(key), tcp.get(key) / c.get(key));
    }

    private static void best(Map<String, Double> into, Map<String, Double> figures) {
        figures.forEach((k, v) -> into.merge(k, v, Math::min));
    }

    /** Runs the C program ({@code exe}) or paratrain ({@code args}) under mpirun; parses its figures. */
    private static Map<String, Double> capture(String exe, JobLaunch launch, List<String> args) {
        String text = exe != null ? CReference.mpirun(launch, Path.of(exe), List.of())
            : CReference.output(Backend.mpiJobCommand(launch, Main.class.getName(), args));
        return figures(text);
    }

    /** The {@code key value} lines of a measuring program's output. */
    private static Map<String, Double> figures(String text) {
        Map<String, Double> figures = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            String[] kv = line.strip().split(" ");
            if (kv.length == 2 && kv[0].matches("[a-z0-9_]+")) {
                figures.put(kv[0], Double.parseDouble(kv[1]));
            }
        }
        return figures;
    }
}
